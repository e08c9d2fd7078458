// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Enumeration against fake sysfs trees (IBASYNC_TEST_ROOT). */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fake_tree.h"
#include "tap.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void test_no_module(void)
{
	char *root = ft_create(false);
	int n = -1;
	struct ibv_device **l;

	errno = 0;
	l = ibv_get_device_list(&n);
	OK(!l && errno == ENOSYS && n == 0,
	   "no ib_async class: NULL, ENOSYS, num 0 (as rdma-core without uverbs)");
	ft_destroy(root);
}

static void test_empty(void)
{
	char *root = ft_create(true);
	int n = -1;
	struct ibv_device **l = ibv_get_device_list(&n);

	OK(l && !l[0] && n == 0, "class without devices: empty list");
	ibv_free_device_list(l);
	ft_destroy(root);
}

/* libibasync speaks uAPI 2 only: another module version is no support. */
static void test_other_abi(void)
{
	char *root = ft_create(true), path[512];
	struct ibv_device **l;
	FILE *f;
	int n = -1;

	ft_add_device(root, 0, "rxe0", "1", NULL);
	snprintf(path, sizeof(path), "%s/sys/class/ib_async/abi_version", root);
	f = fopen(path, "w");
	fputs("1\n", f);
	fclose(f);
	errno = 0;
	l = ibv_get_device_list(&n);
	OK(!l && errno == ENOSYS && n == 0,
	   "abi_version 1: NULL, ENOSYS, as libibverbs on an ABI mismatch");
	ft_destroy(root);
}

static void check_list(struct ibv_device **l, int n)
{
	OK(n == 3 && l[3] == NULL, "3 devices, junk entries skipped (got %d)", n);
	if (n != 3)
		return;
	OK(!strcmp(ibv_get_device_name(l[0]), "mlx0") &&
	   !strcmp(ibv_get_device_name(l[1]), "rxe0") &&
	   !strcmp(ibv_get_device_name(l[2]), "siw0"),
	   "sorted by node number, not readdir order or name");
	OK(!strcmp(l[1]->dev_name, "ib_async2"), "dev_name is the node name");
	OK(ends_with(l[1]->dev_path, "/sys/class/ib_async/ib_async2"),
	   "dev_path is the class device: %s", l[1]->dev_path);
	OK(ends_with(l[1]->ibdev_path, "/sys/class/infiniband/rxe0"),
	   "ibdev_path when the RDMA device is in sysfs");
	OK(l[2]->ibdev_path[0] == '\0', "no ibdev_path when it is not");
	OK(l[1]->node_type == IBV_NODE_CA &&
	   l[1]->transport_type == IBV_TRANSPORT_IB, "node_type 1: CA -> IB");
	OK(l[0]->node_type == IBV_NODE_RNIC &&
	   l[0]->transport_type == IBV_TRANSPORT_IWARP, "4: RNIC -> iWARP");
	OK(l[2]->node_type == IBV_NODE_UNKNOWN &&
	   l[2]->transport_type == IBV_TRANSPORT_UNKNOWN,
	   "no node_type -> unknown");
	OK(ibv_get_device_guid(l[1]) == htobe64(0x0002c90300a1b2c3ULL),
	   "node_guid parsed into network byte order");
	OK(ibv_get_device_guid(l[2]) == 0, "guid 0 when unknown");
}

static void test_devices(void)
{
	char *root = ft_create(true);
	struct ibv_device **l;
	struct ibv_context *ctx;
	char path[512];
	int n;

	ft_add_device(root, 2, "rxe0", "1: CA", "0002:c903:00a1:b2c3");
	ft_add_device(root, 10, "siw0", NULL, NULL);
	ft_add_device(root, 0, "mlx0", "4: RNIC", NULL);
	/* not devices: another name, and a node without its ibdev file */
	snprintf(path, sizeof(path), "%s/sys/class/ib_async/foo", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/class/ib_async/ib_async3", root);
	mkdir(path, 0755);

	l = ibv_get_device_list(&n);
	if (!OK(l, "device list"))
		goto out;
	check_list(l, n);

	/* a context keeps its device alive past ibv_free_device_list() */
	ctx = ibv_open_device(l[1]);
	ibv_free_device_list(l);
	OK(ctx && !strcmp(ibv_get_device_name(ctx->device), "rxe0"),
	   "context outlives the device list");
	if (ctx)
		OK(ibv_close_device(ctx) == 0, "close");

	l = ibv_get_device_list(NULL);
	snprintf(path, sizeof(path), "%s/dev/infiniband/ib_async10", root);
	unlink(path);
	errno = 0;
	ctx = l ? ibv_open_device(l[2]) : NULL;
	OK(!ctx && errno == ENOENT, "missing node: open fails with ENOENT");
	ibv_free_device_list(l);
out:
	ft_destroy(root);
}

int main(void)
{
	test_no_module();
	test_empty();
	test_other_abi();
	test_devices();
	return tap_done();
}
