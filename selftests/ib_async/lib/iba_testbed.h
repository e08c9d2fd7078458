/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every program on the test bed reads of it: the kselftests, the
 * fuzzer, the benchmark and the generator's programs. No harness and no
 * uAPI here, so that each of them can include it.
 */
#ifndef IBA_TESTBED_H
#define IBA_TESTBED_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define IBA_CLASS_DIR		"/sys/class/ib_async"

struct iba_dev {
	char node[PATH_MAX];	/* /dev/infiniband/ib_asyncN */
	char ibdev[64];		/* rxe0 */
};

/* The first line of @path, without its newline: 0, or -1. */
int iba_read_line(const char *path, char *buf, size_t len);

/*
 * The ib_async node serving @ibdev (exactly), or with @ibdev NULL the
 * first one there is: 0 with @dev filled, or -1 with @dev as it was.
 */
int iba_dev_of(const char *ibdev, struct iba_dev *dev);

/*
 * The RoCE v2 GID of the test bed's IPv4 address on port 1 of @ibdev
 * (rxe0's, on veth0): its index, with the raw GID in @gid; -1 if there is
 * none.
 */
int iba_roce_v2_gid(const char *ibdev, uint8_t gid[16]);

#endif /* IBA_TESTBED_H */
