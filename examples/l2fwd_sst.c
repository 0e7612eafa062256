/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DPDK application in the style of l2fwd that adds SST to a port it
 * already owns: it brings the EAL up itself, configures and starts port 0
 * with its own mempool, and only then hands the port's queue 0 to an SST
 * engine (device_ready: the engine neither configures nor stops the port).
 * Its own loop on the main lcore polls the engine, as it would poll its
 * other ports. lib/net answers ARP and ping on the port; the SST service
 * is the echo of echo_service.h.
 *
 *   l2fwd_sst EAL-ARGS -- IPV4/PREFIXLEN UDP-PORT [SECONDS]
 *
 * For instance, with a vhost-user port (net_vhost, as a virtual switch
 * owns one per guest) that another DPDK process (sst-cat) joins as the
 * virtio side:
 *   l2fwd_sst --no-huge --no-pci --vdev=net_vhost0,iface=/tmp/sst.vhost -- 10.9.0.1/24 7000
 *   echo hi | sst-cat --no-huge --no-pci --vdev=net_virtio_user0,path=/tmp/sst.vhost -- \
 *       --port 0 --ip 10.9.0.2/24 10.9.0.1:7000 echo test
 * (Not net_memif in DPDK 22.11: it unmaps the peer's memory from its
 * interrupt thread when the peer leaves, under a receive burst that may be
 * running on this loop; docs/api.md.)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <sst_engine.h>
#include <sst_ethdev.h>

#include "echo_service.h"

enum { PORT = 0, NB_MBUF = 8191, NB_DESC = 1024 };

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* What l2fwd does for each of its ports: one receive and one transmit
 * queue, receiving into our pool. */
static int
port_init(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf = {0};
	uint16_t rxd = NB_DESC, txd = NB_DESC;
	int rc;

	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, rxd, rte_eth_dev_socket_id(port), NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, txd, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static int
parse_ipv4(const char *arg, struct sst_net_addr *a, uint8_t *prefix_len)
{
	unsigned int b[4], len;

	if (sscanf(arg, "%u.%u.%u.%u/%u", &b[0], &b[1], &b[2], &b[3], &len) != 5 || b[0] > 255 ||
		b[1] > 255 || b[2] > 255 || b[3] > 255 || len < 1 || len > 32)
		return -1;
	*a = sst_net_addr4((uint8_t)b[0], (uint8_t)b[1], (uint8_t)b[2], (uint8_t)b[3]);
	*prefix_len = (uint8_t)len;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct sst_ethdev_link_conf link = {.port_id = PORT, .queue_id = 0};
	static const void *const confs[] = {&link};
	struct sst_engine_params ep;
	struct rte_mempool *pool;
	struct sst_engine *e;
	uint64_t end;
	int used;

	used = rte_eal_init(argc, argv);
	if (used < 0)
		return 3;
	argc -= used;
	argv += used;
	sst_engine_params_default(&ep);
	if (argc < 3 || parse_ipv4(argv[1], &ep.net.ipv4, &ep.net.ipv4_prefix_len) < 0) {
		fprintf(stderr, "usage: l2fwd_sst EAL-ARGS -- IPV4/PREFIXLEN UDP-PORT [SECONDS]\n");
		return 2;
	}
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "no DPDK port: give one in the EAL arguments (--vdev=...)\n");
		return 3;
	}
	pool = rte_pktmbuf_pool_create(
		"l2fwd_pool", NB_MBUF, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (pool == NULL || port_init(PORT, pool) < 0) {
		fprintf(stderr, "cannot set port %u up\n", PORT);
		return 3;
	}

	/* SST on queue 0 of the port we own: frames through lib/net. */
	ep.driver = "ethdev";
	ep.driver_confs = confs;
	ep.device_ready = true;
	ep.net.size = sizeof(ep.net);
	rte_eth_macaddr_get(PORT, &ep.net.mac);
	ep.local.port = (uint16_t)atoi(argv[2]);
	ep.stream.ops = &echo_ops;
	e = sst_engine_create(&ep);
	if (e == NULL) {
		fprintf(stderr, "cannot create the engine: %s\n", rte_strerror(rte_errno));
		return 3;
	}
	sst_stream_listen(sst_worker_stream_host(sst_engine_worker(e, 0)), "echo", "test", NULL);
	fprintf(stderr, "listening on UDP port %u of %s\n", ep.local.port, argv[1]);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	end = argc > 3 ? rte_get_timer_cycles() + (uint64_t)atoi(argv[3]) * rte_get_timer_hz()
		       : UINT64_MAX;
	/* The application's loop: here only SST, beside whatever else the
	 * application forwards. */
	while (!quit && rte_get_timer_cycles() < end)
		sst_engine_poll(e, 0);

	/* The port stays ours: stop it ourselves, and first, since its
	 * transmit queue may still hold mbufs of the engine's pools, which
	 * sst_engine_destroy() frees (a crash at exit, one run in a few). */
	rte_eth_dev_stop(PORT);
	sst_engine_destroy(e);
	rte_eth_dev_close(PORT);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
