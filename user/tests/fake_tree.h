/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A fake sysfs + /dev tree for the IBASYNC_TEST_ROOT hook. Node files are
 * FIFOs: ib_async's records are fixed-size and a pipe keeps whole
 * 48-byte writes whole, so read() on them behaves like the node's.
 */
#ifndef IBASYNC_FAKE_TREE_H
#define IBASYNC_FAKE_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/ib_async.h>

/* mkdtemp a root and point IBASYNC_TEST_ROOT at it; NULL on failure. */
char *ft_create(bool with_class);
/* ib_asyncN serving ibdev; node_type/guid NULL: no /sys/class/infiniband. */
int ft_add_device(const char *root, unsigned int n, const char *ibdev,
		  const char *node_type, const char *node_guid);
/* The writer end of ib_asyncN's FIFO (O_RDWR, so open never blocks). */
int ft_open_writer(const char *root, unsigned int n);
int ft_write_event(int fd, uint32_t type, uint64_t element, uint64_t seq,
		   uint64_t count, uint32_t port, uint32_t obj_type);
void ft_destroy(char *root);

struct ibv_context;
struct ibv_device;

/*
 * What most tests start from: a tree (with the class) holding ib_async0,
 * which serves "fake0", a CA, and libibverbs' list of its devices. dev is
 * the list's first, fake0, or NULL when the list came back empty or not
 * at all (ft_fake0_open() then opens nothing).
 */
struct ft_fake0 {
	char *root;
	struct ibv_device **list;
	struct ibv_device *dev;
};

/* 0, or -1 when the tree could not be made; the test says "fake tree". */
int ft_fake0_setup(struct ft_fake0 *f);
/*
 * fake0's node made a regular file, which the library can mmap() as it
 * maps a ring: a descriptor of it (for the test's ftruncate and pages),
 * or -1.
 */
int ft_fake0_node_as_file(const struct ft_fake0 *f);
/* ibv_open_device(f->dev); NULL without a device to open. */
struct ibv_context *ft_fake0_open(const struct ft_fake0 *f);
/* Frees the list and removes the tree; close the contexts first. */
void ft_fake0_teardown(struct ft_fake0 *f);

#endif
