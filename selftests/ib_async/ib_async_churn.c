// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for ib_async_lifetime.sh: open/close an ib_async node many times,
 * optionally leaving events queued (and a queue resized) at close.
 *
 *   ib_async_churn CYCLES                  open, GET_INFO, close
 *   ib_async_churn CYCLES pending EVENTS   per cycle: open 4 files, resize
 *                                          one, storm EVENTS, close unread
 *   ib_async_churn hold                    open and wait for stdin EOF
 */
#define IBA_NO_HARNESS
#include "lib/iba_util.h"

static int cycle_plain(const struct iba_dev *dev)
{
	struct ib_async_info info;
	int fd = open(dev->node, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (iba_get_info(fd, &info)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int cycle_pending(const struct iba_dev *dev, unsigned long nev)
{
	int fds[4], i, ret = 0;

	for (i = 0; i < 4; i++) {
		fds[i] = open(dev->node, O_RDONLY | O_NONBLOCK);
		if (fds[i] < 0)
			return -1;
	}
	/* one small queue that overflows, one large one */
	if (iba_set_queue_len(fds[1], 2) || iba_set_queue_len(fds[2], 4096))
		ret = -1;
	if (!ret && iba_storm(dev->ibdev, IB_ASYNC_EV_SM_CHANGE, 1, nev))
		ret = -1;
	if (!ret && iba_wait_offered(fds[0], nev, 30000))
		ret = -1;
	for (i = 0; i < 4; i++)
		close(fds[i]);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long cycles, nev = 0, i;
	struct iba_dev dev;
	char c;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CYCLES [pending EVENTS] | hold\n",
			argv[0]);
		return 2;
	}
	if (iba_find_dev(&dev)) {
		fprintf(stderr, "no ib_async device\n");
		return 4;	/* KSFT_SKIP */
	}
	if (!strcmp(argv[1], "hold")) {
		int fd = open(dev.node, O_RDONLY);

		if (fd < 0)
			return 1;
		printf("holding %s\n", dev.node);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		close(fd);
		return 0;
	}
	cycles = strtoul(argv[1], NULL, 0);
	if (argc >= 4 && !strcmp(argv[2], "pending")) {
		nev = strtoul(argv[3], NULL, 0);
		if (iba_storm_available()) {
			fprintf(stderr, "no %s\n", IBA_STORM_FILE);
			return 4;
		}
	}
	for (i = 0; i < cycles; i++) {
		if (nev ? cycle_pending(&dev, nev) : cycle_plain(&dev)) {
			fprintf(stderr, "cycle %lu failed: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	printf("%lu cycles on %s (%s)%s\n", cycles, dev.node, dev.ibdev,
	       nev ? ", events left pending at close" : "");
	return 0;
}
