-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark/tshark dissector for Structured Stream Transport (SST) as the
-- original prototype and SST-DPDK put it on the wire (docs/wire-format.md):
-- negotiation chunks (checksum mode, the prototype's DH/JFK, our secure
-- mode), the channel header with 64-bit sequence and ack numbers rebuilt the
-- way a receiver does, the stream header, service messages and Attach USIDs,
-- and the Chk32 trailer verified with the keys the capture's own ChkI1/ChkR1
-- exchanged in clear. Secure-mode (AEAD) and the prototype's AES packets are
-- marked "encrypted": their keys never appear on the wire.
--
-- It decodes what apps/sst-dump decodes, field for field, and the suite
-- checks that packet by packet (tests/system/wireshark.sh).
--
-- Usage: tshark -X lua_script:tools/wireshark/sst.lua -r FILE.pcapng
--        (or copy it into ~/.local/lib/wireshark/plugins/); docs/tools/wireshark.md.

local sst = Proto("sst", "Structured Stream Transport")

------------------------------------------------------------------------
-- Preferences

sst.prefs.port = Pref.uint("UDP port", 8661, "UDP port of SST traffic (either side)")
sst.prefs.chk_keys = Pref.string("Checksum keys", "",
	"For captures that miss the negotiation: SRC,DST,CHAN,KEY entries separated " ..
	"by ';' (as sst-dump --chk-key), e.g. 127.0.0.1:8665,127.0.0.1:8661,1,c21c5f62")

------------------------------------------------------------------------
-- Names and constants

local NEGO_MAGIC = 0x00535354
local NEGO_MAGIC_NRS = 0x004E7273
local NEGO_CHUNKS_MAX = 64
local CHAN_HDR_LEN = 8
local PACKET_MIN = 12

local stream_types = {
	[1] = { name = "Init", hlen = 8, flags = 0x7 },
	[2] = { name = "Reply", hlen = 8, flags = 0x7 },
	[3] = { name = "Data", hlen = 8, flags = 0x7 },
	[4] = { name = "Datagram", hlen = 4, flags = 0x3 },
	[5] = { name = "Ack", hlen = 4, flags = 0x0 },
	[6] = { name = "Reset", hlen = 4, flags = 0x1 },
	[7] = { name = "Attach", hlen = 4, flags = 0x9 },
	[8] = { name = "Detach", hlen = 4, flags = 0x0 },
}
local type_names = {}
for code, t in pairs(stream_types) do
	type_names[code] = t.name
end

-- Secure-mode suite codes (docs/secure-mode.md 3.1) and their trailers.
local suites = {
	[1] = { name = "chk32", trailer = 4 },
	[2] = { name = "aes128gcm", trailer = 16 },
	[3] = { name = "chacha20poly1305", trailer = 16 },
}
local suite_names = {}
for code, s in pairs(suites) do
	suite_names[code] = s.name
end

-- Chunk layouts (docs/wire-format.md 6.3, docs/secure-mode.md 3): each item
-- is { field, kind, bound }. Kinds: u32 (hex: shown in hex), fixed (bound
-- bytes), opaque (XDR opaque<bound>), array (XDR unsigned int<bound>).
local chunk_specs = {
	[0x0001] = { name = "Packet", items = { { "packet", "opaque", 65535 } } },
	[0x0011] = { name = "ChkI1", items = {
		{ "cki", "hex" }, { "chani", "u32" }, { "cookie", "opaque", 1024 },
		{ "ulpi", "opaque", 1024 }, { "cpkt", "opaque", 1024 } } },
	[0x0012] = { name = "ChkR1", items = {
		{ "cki", "hex" }, { "ckr", "hex" }, { "chanr", "u32" }, { "cookie", "opaque", 1024 },
		{ "ulpr", "opaque", 1024 }, { "cpkt", "opaque", 1024 } } },
	[0x0021] = { name = "DhI1", items = {
		{ "group", "u32" }, { "keymin", "u32" }, { "nhi", "fixed", 32 },
		{ "dhi", "opaque", 384 }, { "eidr", "opaque", 256 } } },
	[0x0022] = { name = "DhR1", items = {
		{ "group", "u32" }, { "keylen", "u32" }, { "nhi", "fixed", 32 }, { "nr", "fixed", 32 },
		{ "dhr", "opaque", 384 }, { "hhkr", "opaque", 256 }, { "eidr", "opaque", 256 },
		{ "pkr", "opaque", 4096 }, { "sr", "opaque", 4096 } } },
	[0x0023] = { name = "DhI2", items = {
		{ "group", "u32" }, { "keylen", "u32" }, { "ni", "fixed", 32 }, { "nr", "fixed", 32 },
		{ "dhi", "opaque", 384 }, { "dhr", "opaque", 384 }, { "hhkr", "opaque", 256 },
		{ "idi", "opaque", 4096 } } },
	[0x0024] = { name = "DhR2", items = { { "nhi", "fixed", 32 }, { "idr", "opaque", 4096 } } },
	[0x0031] = { name = "SecI1", items = {
		{ "version", "u32" }, { "ni", "fixed", 32 }, { "ei", "fixed", 32 },
		{ "offer", "array", 8 }, { "chani", "u32" }, { "ulpi", "opaque", 256 },
		{ "cookie", "opaque", 64 } } },
	[0x0032] = { name = "SecR1", items = {
		{ "ni", "fixed", 32 }, { "er", "fixed", 32 }, { "nr", "fixed", 32 },
		{ "suite", "u32" }, { "chanr", "u32" }, { "sealed", "opaque", 372 } } },
	[0x0033] = { name = "SecI2", items = { { "nr", "fixed", 32 }, { "sealed", "opaque", 120 } } },
	[0x0034] = { name = "SecCookie", items = { { "ni", "fixed", 32 }, { "cookie", "opaque", 64 } } },
	[0x0035] = { name = "SecRefuse", items = {
		{ "ni", "fixed", 32 }, { "reason", "u32" }, { "suites", "array", 8 } } },
}

------------------------------------------------------------------------
-- Fields

local F = {
	kind = ProtoField.string("sst.kind", "Kind"),
	magic = ProtoField.uint32("sst.magic", "Magic", base.HEX),
	chunks = ProtoField.uint32("sst.chunks", "Chunks"),
	chunk = ProtoField.bytes("sst.chunk", "Chunk"),
	chunk_len = ProtoField.uint32("sst.chunk.len", "Chunk length"),
	chunk_type = ProtoField.uint32("sst.chunk.type", "Chunk type", base.HEX),
	chunk_name = ProtoField.string("sst.chunk.name", "Chunk name"),
	ch = ProtoField.uint8("sst.ch", "Channel"),
	tsn24 = ProtoField.uint32("sst.tsn24", "Sequence (low 24 bits)", base.DEC, nil, 0x00ffffff),
	seq = ProtoField.uint64("sst.seq", "Sequence number"),
	rsvd = ProtoField.uint8("sst.rsvd", "Reserved", base.HEX, nil, 0xf0),
	ackct = ProtoField.uint8("sst.ackct", "Ack count", base.DEC, nil, 0x0f),
	ack24 = ProtoField.uint32("sst.ack24", "Ack (low 24 bits)", base.DEC, nil, 0x00ffffff),
	ack = ProtoField.uint64("sst.ack", "Ack sequence number"),
	ack_from = ProtoField.uint64("sst.ack_from", "Acknowledged from"),
	sid = ProtoField.uint16("sst.sid", "SID"),
	type = ProtoField.uint8("sst.type", "Type", base.DEC, type_names, 0xf0),
	type_name = ProtoField.string("sst.type_name", "Type name"),
	flags = ProtoField.uint8("sst.flags", "Flags", base.HEX, nil, 0x0f),
	flag_letters = ProtoField.string("sst.flag_letters", "Flag letters"),
	win = ProtoField.uint8("sst.win", "Window byte", base.HEX),
	credit = ProtoField.uint32("sst.credit", "Receive credit (bytes)"),
	ref = ProtoField.uint16("sst.ref", "RefSID"),
	tsn = ProtoField.uint32("sst.tsn", "Byte offset"),
	len = ProtoField.uint32("sst.len", "Payload length"),
	payload = ProtoField.bytes("sst.payload", "Payload"),
	service = ProtoField.string("sst.service", "Service"),
	protocol = ProtoField.string("sst.protocol", "Protocol"),
	reply_error = ProtoField.int32("sst.reply_error", "Service reply error"),
	usid_counter = ProtoField.uint64("sst.usid.counter", "USID counter"),
	usid_hcid = ProtoField.bytes("sst.usid.hcid", "USID half-channel ID"),
	parent_counter = ProtoField.uint64("sst.parent.counter", "Parent USID counter"),
	parent_hcid = ProtoField.bytes("sst.parent.hcid", "Parent USID half-channel ID"),
	armor = ProtoField.string("sst.armor", "Armor"),
	trailer = ProtoField.bytes("sst.trailer", "Trailer"),
	trailer_status = ProtoField.string("sst.trailer_status", "Trailer check"),
	encrypted = ProtoField.bytes("sst.encrypted", "Encrypted"),
	attach_error = ProtoField.string("sst.attach_error", "Attach body error"),
	error = ProtoField.string("sst.error", "Error"),
	where = ProtoField.string("sst.where", "Where"),
}
-- One field per chunk item: sst.<chunk>.<item>, e.g. sst.chki1.cki.
local chunk_fields = {}
for code, spec in pairs(chunk_specs) do
	chunk_fields[code] = {}
	for _, item in ipairs(spec.items) do
		local abbr = "sst." .. spec.name:lower() .. "." .. item[1]
		local label = spec.name .. " " .. item[1]
		local f
		if item[2] == "hex" then
			f = ProtoField.uint32(abbr, label, base.HEX)
		elseif item[2] == "u32" or item[2] == "array" then
			f = ProtoField.uint32(abbr, label)
		else
			f = ProtoField.bytes(abbr, label)
		end
		chunk_fields[code][item[1]] = f
		F[abbr] = f
	end
end
local field_list = {}
for _, f in pairs(F) do
	field_list[#field_list + 1] = f
end
sst.fields = field_list

local ef_malformed = ProtoExpert.new("sst.malformed", "Malformed SST packet", expert.group.MALFORMED,
	expert.severity.ERROR)
local ef_bad_trailer = ProtoExpert.new("sst.bad_trailer", "Trailer does not verify",
	expert.group.CHECKSUM, expert.severity.ERROR)
sst.experts = { ef_malformed, ef_bad_trailer }

------------------------------------------------------------------------
-- Session state, rebuilt from the first frame on every (re)load: the flows
-- negotiation set up and the highest sequence numbers seen, as sst-dump's
-- dump_session.c keeps them. Results are cached per frame so that a second
-- pass (the GUI re-dissecting a packet) shows what the first pass computed.

local flows, offers, sec_offers, dh_pairs, frames, memos, known_pairs
local pkt_index = 0 -- channel packets so far in the frame being dissected

local function endpoint(addr, port)
	local s = tostring(addr)
	if s:find(":", 1, true) then
		return "[" .. s .. "]:" .. port
	end
	return s .. ":" .. port
end

local function flow_get(src, dst, chan)
	local key = src .. ">" .. dst .. "/" .. chan
	local f = flows[key]
	if f == nil then
		f = { highest_seq = 0, highest_ack = 0 }
		flows[key] = f
	end
	return f
end

-- A (new) key or armor for a flow. Anything else than what it had means a
-- new channel reusing the number, whose sequence numbers start again at 1.
local function flow_set(f, armor, key, trailer)
	if f.armor ~= armor or f.key ~= key then
		f.highest_seq = 0
		f.highest_ack = 0
	end
	f.armor = armor
	f.key = key
	f.trailer = trailer
end

local function load_pref_keys()
	for entry in string.gmatch(sst.prefs.chk_keys or "", "[^;%s]+") do
		local src, dst, chan, key = entry:match("^(.+:%d+),(.+:%d+),(%d+),(%x+)$")
		if src ~= nil then
			flow_set(flow_get(src, dst, tonumber(chan)), "chk32", tonumber(key, 16), 4)
		end
	end
end

function sst.init()
	flows, offers, sec_offers, dh_pairs, frames, memos, known_pairs = {}, {}, {}, {}, {}, {}, {}
	load_pref_keys()
end

------------------------------------------------------------------------
-- Arithmetic (Lua 5.2: numbers are doubles, exact up to 2^53, which every
-- sequence number of a capture is).

local TWO24 = 16777216
local TWO32 = 4294967296

-- sst_seq_expand() for 24 bits: the value nearest ref with those low bits.
local function seq_expand(ref, low24)
	local diff = (low24 - ref) % TWO24
	if diff < TWO24 / 2 then
		return ref + diff
	end
	local back = TWO24 - diff
	if back > ref then
		return nil
	end
	return ref - back
end

-- Chk32 (docs/wire-format.md section 3) over the 8-byte sequence number,
-- then the packet's bytes, then 0x80 and a zero to an even length.
local function chk32(seq, bytes)
	local a, b = 0, 0
	local hi = math.floor(seq / TWO32)
	local lo = seq % TWO32
	local pre = { math.floor(hi / 65536), hi % 65536, math.floor(lo / 65536), lo % 65536 }
	for i = 1, 4 do
		a = (a + pre[i]) % 65537
		b = (b + a) % 65537
	end
	local s = bytes .. (#bytes % 2 == 0 and "\128\0" or "\128")
	local byte = string.byte
	for i = 1, #s, 2 do
		local h, l = byte(s, i, i + 1)
		a = (a + h * 256 + l) % 65537
		b = (b + a) % 65537
	end
	return (a % 65536) + (b % 65536) * 65536
end

------------------------------------------------------------------------
-- XDR reading over a TvbRange; errors are the names of sst_error_name().

local function xdr_reader(tvb, off, limit)
	return { tvb = tvb, pos = off, limit = limit }
end

local function xdr_u32(r)
	if r.limit - r.pos < 4 then
		return nil, "truncated"
	end
	local v = r.tvb(r.pos, 4):uint()
	r.pos = r.pos + 4
	return v
end

-- Fixed bytes with XDR padding; returns the offset of the bytes.
local function xdr_fixed(r, n)
	local padded = n + (4 - n % 4) % 4
	if r.limit - r.pos < padded then
		return nil, "truncated"
	end
	for i = r.pos + n, r.pos + padded - 1 do
		if r.tvb(i, 1):uint() ~= 0 then
			return nil, "bad-padding"
		end
	end
	local at = r.pos
	r.pos = r.pos + padded
	return at
end

-- opaque<max>: returns offset and length.
local function xdr_opaque(r, max)
	local save = r.pos
	local n, err = xdr_u32(r)
	if n == nil then
		return nil, err
	end
	if n > max then
		r.pos = save
		return nil, "too-long"
	end
	local at
	at, err = xdr_fixed(r, n)
	if at == nil then
		r.pos = save
		return nil, err
	end
	return at, n
end

------------------------------------------------------------------------
-- Negotiation (docs/wire-format.md section 6, docs/secure-mode.md 3)

local dissect_channel -- forward

-- What a chunk teaches about channels: keys and channel numbers in checksum
-- mode, the chosen suite in secure mode, "AES armor" after a DH exchange.
local function learn_chunk(code, v, src, dst)
	if code == 0x0011 then
		offers[src .. ">" .. dst .. "/" .. v.cki] = v.chani
	elseif code == 0x0012 then
		if v.chanr == 0 or v.ckr == v.cki then
			return -- a cookie request: no channel yet
		end
		local chani = offers[dst .. ">" .. src .. "/" .. v.cki]
		if chani ~= nil then
			flow_set(flow_get(dst, src, v.chanr), "chk32", v.cki, 4)
			flow_set(flow_get(src, dst, chani), "chk32", v.ckr, 4)
		end
	elseif code == 0x0021 or code == 0x0022 then
		dh_pairs[src .. ">" .. dst] = true
		dh_pairs[dst .. ">" .. src] = true
	elseif code == 0x0031 then
		sec_offers[v.ni] = { initiator = src, responder = dst, chani = v.chani }
	elseif code == 0x0032 then
		local o = sec_offers[v.ni]
		local s = suites[v.suite]
		if o ~= nil and s ~= nil and o.initiator == dst and o.responder == src then
			-- The keys come from the X25519 exchange: even a CHK32 suite's
			-- checksum keys are unknown to an observer.
			local armor = s.trailer == 4 and "chk32" or s.name
			flow_set(flow_get(dst, src, v.chanr), armor, "secure:" .. v.ni, s.trailer)
			flow_set(flow_get(src, dst, o.chani), armor, "secure:" .. v.ni, s.trailer)
		end
	end
end

local function dissect_chunk(tvb, pinfo, tree, r, src, dst, learn)
	local len, err = xdr_u32(r)
	if len == nil or len < 4 or len > r.limit - r.pos then
		return "bad-length"
	end
	local start = r.pos - 4
	local body_end = r.pos + len
	local code = tvb(r.pos, 4):uint()
	local spec = chunk_specs[code]
	local padded = len + (4 - len % 4) % 4
	if r.limit - r.pos < padded then
		return "bad-length"
	end
	local ct = tree:add(F.chunk, tvb(start, 4 + padded))
	ct:set_text(spec ~= nil and spec.name or string.format("Chunk 0x%04x", code))
	ct:add(F.chunk_len, tvb(start, 4))
	ct:add(F.chunk_type, tvb(r.pos, 4))
	if spec ~= nil then
		ct:add(F.chunk_name, spec.name):set_generated()
	end
	for i = body_end, start + 4 + padded - 1 do
		if tvb(i, 1):uint() ~= 0 then
			return "bad-padding"
		end
	end
	r.pos = start + 4 + padded
	if spec == nil then
		return nil -- receivers skip unknown chunks by their length
	end
	local b = xdr_reader(tvb, body_end - len + 4, body_end)
	local v = {}
	for _, item in ipairs(spec.items) do
		local name, kind, bound = item[1], item[2], item[3]
		local f = chunk_fields[code][name]
		if kind == "hex" or kind == "u32" then
			local at = b.pos
			v[name], err = xdr_u32(b)
			if v[name] == nil then
				break
			end
			ct:add(f, tvb(at, 4))
		elseif kind == "fixed" then
			local at
			at, err = xdr_fixed(b, bound)
			if at == nil then
				break
			end
			v[name] = tostring(tvb(at, bound):bytes())
			ct:add(f, tvb(at, bound))
		elseif kind == "opaque" then
			local at, n = xdr_opaque(b, bound)
			if at == nil then
				err = n
				break
			end
			if n > 0 then
				ct:add(f, tvb(at, n))
			else
				ct:add(tvb(at - 4, 4), spec.name .. " " .. name .. ": (empty)")
			end
			if code == 0x0001 and n > 0 then
				dissect_channel(tvb(at, n):tvb("Packet chunk"), pinfo, ct, src, dst)
			end
		elseif kind == "array" then
			local n
			n, err = xdr_u32(b)
			if n == nil then
				break
			end
			if n > bound then
				err = "too-long"
				break
			end
			for _ = 1, n do
				local at = b.pos
				local x
				x, err = xdr_u32(b)
				if x == nil then
					break
				end
				ct:add(f, tvb(at, 4))
			end
			if err ~= nil then
				break
			end
		end
	end
	if err == nil and b.pos ~= b.limit then
		err = "trailing"
	end
	if err == nil and (code == 0x0011 or code == 0x0031) and (v.chani == 0 or v.chani > 255) then
		err = "bad-value"
	end
	if err == nil and (code == 0x0012 or code == 0x0032) and v.chanr > 255 then
		err = "bad-value"
	end
	if err ~= nil then
		ct:add(F.error, err)
		ct:add_proto_expert_info(ef_malformed, spec.name .. ": " .. err)
		return nil
	end
	if learn then
		learn_chunk(code, v, src, dst)
	end
	return nil
end

local function dissect_control(tvb, pinfo, tree, src, dst, learn)
	tree:add(F.kind, "control"):set_generated()
	if tvb:len() < 4 then
		return "truncated", "control magic"
	end
	local magic = tvb(0, 4):uint()
	tree:add(F.magic, tvb(0, 4))
	if magic == NEGO_MAGIC_NRS then
		pinfo.cols.info:set("Registration (prototype)")
		return nil
	end
	if magic ~= NEGO_MAGIC then
		return "bad-magic", "control magic"
	end
	if tvb:len() < 8 then
		return "truncated", "negotiation framing"
	end
	local n = tvb(4, 4):uint()
	tree:add(F.chunks, tvb(4, 4))
	if n > NEGO_CHUNKS_MAX then
		return "too-long", "negotiation framing"
	end
	local r = xdr_reader(tvb, 8, tvb:len())
	local names = {}
	for _ = 1, n do
		local code = r.limit - r.pos >= 8 and tvb(r.pos + 4, 4):uint() or nil
		local err = dissect_chunk(tvb, pinfo, tree, r, src, dst, learn)
		if err ~= nil then
			return err, "negotiation framing"
		end
		local spec = chunk_specs[code]
		names[#names + 1] = spec ~= nil and spec.name or string.format("0x%04x", code)
	end
	if r.pos ~= r.limit then
		return "trailing", "negotiation framing"
	end
	pinfo.cols.info:set(n == 0 and "Negotiation ping" or "Negotiation " .. table.concat(names, " "))
	return nil
end

------------------------------------------------------------------------
-- Channel packets (docs/wire-format.md sections 2-5)

local function flag_letters(stype, flags)
	local s = ""
	if stype >= 1 and stype <= 3 then
		if bit32.band(flags, 4) ~= 0 then s = s .. "P" end
		if bit32.band(flags, 2) ~= 0 then s = s .. "M" end
		if bit32.band(flags, 1) ~= 0 then s = s .. "C" end
	elseif stype == 4 then
		if bit32.band(flags, 2) ~= 0 then s = s .. "B" end
		if bit32.band(flags, 1) ~= 0 then s = s .. "E" end
	elseif stype == 6 then
		if bit32.band(flags, 1) ~= 0 then s = s .. "O" end
	elseif stype == 7 then
		if bit32.band(flags, 8) ~= 0 then s = s .. "I" end
		s = s .. "slot" .. bit32.band(flags, 1)
	end
	return s == "" and "-" or s
end

local function usid(tree, r, fc, fh)
	local at = r.pos
	if r.limit - r.pos < 8 then
		return "truncated"
	end
	local counter = r.tvb(at, 8):uint64()
	r.pos = r.pos + 8
	local hat, n = xdr_opaque(r, 32)
	if hat == nil then
		return n
	end
	if n == 0 then
		return "bad-value"
	end
	tree:add(fc, r.tvb(at, 8), counter)
	tree:add(fh, r.tvb(hat, n))
	return nil
end

-- Service messages at the start of a stream (section 5) and Attach bodies.
local function dissect_payload(tvb, tree, stype, flags, tsn, off, plen)
	local data = stype >= 1 and stype <= 3
	if data and tsn == 0 and bit32.band(flags, 2) ~= 0 and plen >= 4 then
		local code = tvb(off, 4):int()
		local r = xdr_reader(tvb, off + 4, off + plen)
		if code == 0x101 and plen <= 1024 then
			local sat, slen = xdr_opaque(r, 256)
			local pat, plen2 = nil, nil
			if sat ~= nil then
				pat, plen2 = xdr_opaque(r, 256)
			end
			if pat ~= nil and r.pos == r.limit and slen > 0 and plen2 > 0 then
				local s, p = tvb(sat, slen):string(), tvb(pat, plen2):string()
				if #s == slen and #p == plen2 then -- no NUL inside
					local st = tree:add(tvb(off, plen), "ConnectRequest")
					st:add(F.service, tvb(sat, slen))
					st:add(F.protocol, tvb(pat, plen2))
				end
			end
		elseif code == 0x201 and plen == 8 then
			local st = tree:add(tvb(off, plen), "ConnectReply")
			st:add(F.reply_error, tvb(off + 4, 4))
		end
	elseif stype == 7 then
		local r = xdr_reader(tvb, off, off + plen)
		local st = tree:add(tvb(off, plen), "Attach body")
		local err = usid(st, r, F.usid_counter, F.usid_hcid)
		if err == nil and bit32.band(flags, 8) ~= 0 then
			err = usid(st, r, F.parent_counter, F.parent_hcid)
		end
		if err == nil and r.pos ~= r.limit then
			err = "trailing"
		end
		return err
	end
	return nil
end

local function channel_fields(tvb, pinfo, tree, f, memo, fresh, status, trailer_len)
	local body_len = tvb:len() - trailer_len
	if body_len < PACKET_MIN then
		return "truncated", "packet length"
	end
	local w1 = tvb(4, 4):uint()
	local ackct = bit32.band(bit32.rshift(w1, 24), 0x0f)
	tree:add(F.rsvd, tvb(4, 1))
	tree:add(F.ackct, tvb(4, 1))
	tree:add(F.ack24, tvb(4, 4))
	if bit32.band(w1, 0xf0000000) ~= 0 then
		return "reserved", status == "nokey" and "channel header (encrypted? no key)" or "channel header"
	end
	if fresh then
		local ack = seq_expand(f.highest_ack, bit32.band(w1, 0xffffff))
		if ack == nil then
			ack = bit32.band(w1, 0xffffff)
		elseif ack > f.highest_ack then
			f.highest_ack = ack
		end
		memo.ack = ack
	end
	local ack = memo.ack
	tree:add(F.ack, UInt64.new(ack % TWO32, math.floor(ack / TWO32))):set_generated()
	tree:add(F.ack_from, UInt64.new((ack - math.min(ackct, ack)) % TWO32,
		math.floor((ack - math.min(ackct, ack)) / TWO32))):set_generated()

	local b0 = tvb(8 + 2, 1):uint()
	local stype, flags = bit32.rshift(b0, 4), bit32.band(b0, 0x0f)
	local st = stream_types[stype]
	if st == nil then
		return "bad-type", "stream header"
	end
	if body_len - CHAN_HDR_LEN < st.hlen then
		return "truncated", "stream header"
	end
	local sh = tree:add(tvb(8, st.hlen), "Stream header: " .. st.name)
	sh:add(F.sid, tvb(8, 2))
	sh:add(F.type, tvb(10, 1))
	sh:add(F.type_name, st.name):set_generated()
	sh:add(F.flags, tvb(10, 1))
	if bit32.band(flags, bit32.bnot(st.flags)) ~= 0 then
		return "bad-flags", "stream header"
	end
	local win = tvb(11, 1):uint()
	if bit32.band(win, 0x20) ~= 0 then
		return "reserved", "stream header"
	end
	sh:add(F.flag_letters, flag_letters(stype, flags)):set_generated()
	sh:add(F.win, tvb(11, 1))
	sh:add(F.credit, 2 ^ bit32.band(win, 0x1f) - 1):set_generated()
	local tsn = 0
	if stype == 1 or stype == 2 then
		sh:add(F.ref, tvb(12, 2))
		sh:add(F.tsn, tvb(14, 2))
		tsn = tvb(14, 2):uint()
	elseif stype == 3 then
		sh:add(F.tsn, tvb(12, 4))
		tsn = tvb(12, 4):uint()
	end
	local off = CHAN_HDR_LEN + st.hlen
	local plen = body_len - off
	sh:add(F.len, plen):set_generated()
	if plen > 0 then
		tree:add(F.payload, tvb(off, plen))
	end
	pinfo.cols.info:append(string.format(" %s sid=%d%s len=%d", st.name, tvb(8, 2):uint(),
		stype <= 3 and " off=" .. tsn or "", plen))
	local err = dissect_payload(tvb, tree, stype, flags, tsn, off, plen)
	if err ~= nil then
		tree:add(F.attach_error, err)
	end
	return nil
end

-- One channel packet. The flow state advances the first time a packet is
-- dissected; what that pass computed is kept (memo) for later passes.
dissect_channel = function(tvb, pinfo, tree, src, dst)
	tree:add(F.kind, "channel"):set_generated()
	tree:add(F.ch, tvb(0, 1))
	local chan = tvb(0, 1):uint()
	if tvb:len() < CHAN_HDR_LEN then
		return "truncated", "channel header"
	end
	tree:add(F.tsn24, tvb(0, 4))
	local f = flow_get(src, dst, chan)
	local key = pinfo.number .. ":" .. pkt_index
	pkt_index = pkt_index + 1
	local memo = memos[key]
	local fresh = memo == nil
	if fresh then
		memo = { seq = seq_expand(f.highest_seq, bit32.band(tvb(0, 4):uint(), 0xffffff)) }
		memos[key] = memo
	end
	local seq = memo.seq
	if seq == nil then
		return "seq-range", "sequence number"
	end
	tree:add(F.seq, UInt64.new(seq % TWO32, math.floor(seq / TWO32))):set_generated()
	pinfo.cols.info:set(string.format("ch=%d seq=%d", chan, seq))

	local armor, trailer_len, status = f.armor, f.trailer, nil
	if armor == nil then
		-- No negotiation seen: the prototype's AES armor after a DH exchange,
		-- otherwise checksum mode with a key we do not have.
		if dh_pairs[src .. ">" .. dst] then
			armor, trailer_len = "aes-hmac", 16
		else
			armor, trailer_len = "chk32", 4
		end
	end
	tree:add(F.armor, armor):set_generated()
	if tvb:len() >= trailer_len then
		tree:add(F.trailer, tvb(tvb:len() - trailer_len, trailer_len))
	end
	if armor ~= "chk32" then
		status = "encrypted"
	elseif not fresh then
		status = memo.status
	elseif f.key == nil or type(f.key) ~= "number" then
		status = "nokey"
	elseif tvb:len() < trailer_len + 1 then
		status = "BAD"
	else
		local n = tvb:len() - trailer_len
		local want = (chk32(seq, tvb(0, n):raw()) + f.key) % TWO32
		status = tvb(n, 4):uint() == want and "ok" or "BAD"
	end
	memo.status = status
	tree:add(F.trailer_status, status):set_generated()
	pinfo.cols.info:append(" " .. armor .. "=" .. status)
	if status == "BAD" then
		tree:add_proto_expert_info(ef_bad_trailer)
		return nil -- a receiver drops it before it touches any state
	end
	if fresh and seq > f.highest_seq then
		f.highest_seq = seq
	end
	if status == "encrypted" then
		if tvb:len() > 4 + trailer_len then
			tree:add(F.encrypted, tvb(4, tvb:len() - 4 - trailer_len))
		end
		return nil
	end
	return channel_fields(tvb, pinfo, tree, f, memo, fresh, status, trailer_len)
end

------------------------------------------------------------------------
-- Entry points

local function dissect(tvb, pinfo, root)
	local len = tvb:len()
	if len == 0 then
		return 0
	end
	pinfo.cols.protocol:set("SST")
	local tree = root:add(sst, tvb())
	local src = endpoint(pinfo.src, pinfo.src_port)
	local dst = endpoint(pinfo.dst, pinfo.dst_port)
	-- Negotiation is learnt once per frame, in capture order (a second look
	-- at a frame in the GUI must not move anything).
	local learn = frames[pinfo.number] == nil
	frames[pinfo.number] = true
	pkt_index = 0
	local err, where
	if tvb(0, 1):uint() == 0 then
		err, where = dissect_control(tvb, pinfo, tree, src, dst, learn)
	else
		err, where = dissect_channel(tvb, pinfo, tree, src, dst)
	end
	if err ~= nil then
		tree:add(F.error, err):set_generated()
		tree:add(F.where, where):set_generated()
		tree:add_proto_expert_info(ef_malformed, where .. ": " .. err)
	end
	return len
end

function sst.dissector(tvb, pinfo, root)
	return dissect(tvb, pinfo, root)
end

-- Traffic on other ports: a negotiation message is recognised by its magic,
-- and channel packets between endpoints that negotiated follow it.
local function heuristic(tvb, pinfo, root)
	if tvb:len() < 8 then
		return false
	end
	local src = endpoint(pinfo.src, pinfo.src_port)
	local dst = endpoint(pinfo.dst, pinfo.dst_port)
	if tvb(0, 4):uint() == NEGO_MAGIC then
		known_pairs[src .. ">" .. dst] = true
		known_pairs[dst .. ">" .. src] = true
	elseif not known_pairs[src .. ">" .. dst] then
		return false
	end
	dissect(tvb, pinfo, root)
	return true
end

local udp_port = DissectorTable.get("udp.port")
local registered_port = sst.prefs.port
udp_port:add(registered_port, sst)
sst:register_heuristic("udp", heuristic)

function sst.prefs_changed()
	if registered_port ~= sst.prefs.port then
		udp_port:remove(registered_port, sst)
		registered_port = sst.prefs.port
		udp_port:add(registered_port, sst)
	end
	sst.init()
end
