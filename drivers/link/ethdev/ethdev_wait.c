/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The descriptor an idle worker on a port may block on instead of polling
 * (the link contract's wait_fd). A NIC's queue offers only interrupts,
 * which the engine does not use, so its worker polls. net_af_packet's
 * queues are kernel packet sockets with a receive ring, and such a socket
 * polls readable as soon as the kernel has put a frame in the ring and
 * the ring's user has not taken it yet (packet_poll()). Blocking there
 * lets the kernel wake the worker with the frame, as it wakes a process
 * blocked on a UDP socket; a worker that spins instead, on a CPU shared
 * with other runnable tasks, sees the frame only when the scheduler next
 * gives it the CPU, at a tick (4 ms at HZ=250): issue 17, where a
 * transaction over a veth took 2 to 20 ms (docs/performance.md).
 *
 * The PMD keeps its sockets to itself (no API returns them, and it has no
 * receive interrupts), so the socket is found in the process's descriptor
 * table: the AF_PACKET socket bound to the port's interface
 * (rte_eth_dev_info.if_index). The PMD opens one per queue pair, so a port
 * of one queue pair has exactly one. With several queue pairs, or another
 * packet socket on the same interface, the match would be a guess, and
 * there is no descriptor: the worker polls, as on any other port.
 *
 * net_af_xdp's queues are AF_XDP sockets (XSKs), which poll readable as
 * soon as their receive ring holds a frame (xsk_poll()); the PMD keeps
 * them to itself too and its receive interrupts are not used. An XSK has
 * no address to read back (getsockname() is not supported), and the
 * kernel's socket diagnostics that would tell its interface and queue
 * (xsk_diag, `ss --xdp`) are an option kernels go without (this VM's
 * does). But the PMD opens a queue's XSK when the queue is set up: the
 * port setup lists the process's AF_XDP sockets before and after each
 * receive queue's setup, and the one socket that appeared is that
 * queue's, whatever the number of queues.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_packet.h>

#include <rte_ethdev.h>

#include "ethdev_internal.h"

/* The AF_PACKET socket bound to interface if_index, when exactly one is
 * open in this process; -ENOENT when none is, -EEXIST when several are. */
static int
packet_socket_of(unsigned int if_index)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int found = -ENOENT;

	if (dir == NULL)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		struct sockaddr_ll sll;
		socklen_t len = sizeof(sll);
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (end == de->d_name || *end != '\0' || fd < 0 || fd == dirfd(dir))
			continue;
		memset(&sll, 0, sizeof(sll));
		if (getsockname((int)fd, (struct sockaddr *)&sll, &len) != 0 ||
			len < offsetof(struct sockaddr_ll, sll_ifindex) + sizeof(sll.sll_ifindex) ||
			sll.sll_family != AF_PACKET || sll.sll_ifindex != (int)if_index)
			continue;
		if (found >= 0) {
			found = -EEXIST;
			break;
		}
		found = (int)fd;
	}
	closedir(dir);
	return found;
}

#ifndef AF_XDP
#define AF_XDP 44
#endif

/* The XSK of each queue of each net_af_xdp port, as its setup found it;
 * -1: none known. Written at setup and stop, on the main lcore; read when
 * a link opens, after the setup. */
static int xsk_fd[RTE_MAX_ETHPORTS][ETHDEV_XSK_QUEUES];
static bool xsk_known[RTE_MAX_ETHPORTS];

void
ethdev_xsk_list(struct ethdev_xsks *x)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;

	x->n = 0;
	if (dir == NULL)
		return;
	while ((de = readdir(dir)) != NULL && x->n < ETHDEV_XSK_LIST_MAX) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		int domain = 0;
		socklen_t len = sizeof(domain);
		struct stat st;

		if (end == de->d_name || *end != '\0' || fd < 0 || fd == dirfd(dir))
			continue;
		if (fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
			getsockopt((int)fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
			domain != AF_XDP)
			continue;
		x->fd[x->n] = (int)fd;
		x->ino[x->n] = st.st_ino;
		x->n++;
	}
	closedir(dir);
}

static bool
xsk_listed(const struct ethdev_xsks *x, int fd, ino_t ino)
{
	for (unsigned int i = 0; i < x->n; i++)
		if (x->fd[i] == fd && x->ino[i] == ino)
			return true;
	return false;
}

void
ethdev_xsk_note(uint16_t port_id, uint16_t queue_id, const struct ethdev_xsks *before)
{
	struct ethdev_xsks after;
	int found = -1;

	if (!xsk_known[port_id]) {
		for (unsigned int q = 0; q < ETHDEV_XSK_QUEUES; q++)
			xsk_fd[port_id][q] = -1;
		xsk_known[port_id] = true;
	}
	if (queue_id >= ETHDEV_XSK_QUEUES)
		return;
	ethdev_xsk_list(&after);
	for (unsigned int i = 0; i < after.n; i++) {
		if (xsk_listed(before, after.fd[i], after.ino[i]))
			continue;
		if (found >= 0) { /* two new ones: not ours to tell apart */
			found = -1;
			break;
		}
		found = after.fd[i];
	}
	xsk_fd[port_id][queue_id] = found;
	if (found < 0)
		ETHDEV_LOG(INFO, "port %u queue %u: no single new AF_XDP socket: polled", port_id,
			queue_id);
}

void
ethdev_xsk_forget(uint16_t port_id)
{
	xsk_known[port_id] = false;
}

int
ethdev_wait_fd_find(uint16_t port_id, uint16_t queue_id, const struct rte_eth_dev_info *dev)
{
	int fd;

	if (strcmp(dev->driver_name, "net_af_xdp") == 0)
		return xsk_known[port_id] && queue_id < ETHDEV_XSK_QUEUES &&
				       xsk_fd[port_id][queue_id] >= 0
			       ? xsk_fd[port_id][queue_id]
			       : -ENOTSUP;
	if (strcmp(dev->driver_name, "net_af_packet") != 0 || dev->if_index == 0 || queue_id != 0)
		return -ENOTSUP;
	if (dev->max_rx_queues != 1) {
		ETHDEV_LOG(INFO,
			"port %u: %u af_packet queue pairs: which socket is whose is not known, "
			"the workers poll",
			port_id, dev->max_rx_queues);
		return -ENOTSUP;
	}
	fd = packet_socket_of(dev->if_index);
	if (fd < 0) {
		ETHDEV_LOG(INFO, "port %u: no single packet socket on interface %u (%s): polled",
			port_id, dev->if_index, strerror(-fd));
		return -ENOTSUP;
	}
	return fd;
}

int
sst_ethdev_wait_fd(uint16_t port_id, uint16_t queue_id)
{
	struct rte_eth_dev_info dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	if (rte_eth_dev_info_get(port_id, &dev) != 0)
		return -ENOTSUP;
	return ethdev_wait_fd_find(port_id, queue_id, &dev);
}
