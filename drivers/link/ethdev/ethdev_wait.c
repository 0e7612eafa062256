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
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

int
ethdev_wait_fd_find(uint16_t port_id, const struct rte_eth_dev_info *dev)
{
	int fd;

	if (strcmp(dev->driver_name, "net_af_packet") != 0 || dev->if_index == 0)
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
