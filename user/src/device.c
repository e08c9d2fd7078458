// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device enumeration: one ib_async class device per RDMA device, named
 * after the RDMA device it serves (its "ibdev" attribute).
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "ibasync.h"

#define IBASYNC_DEV_PREFIX "ib_async"

void ibasync_device_get(struct ibasync_device *dev)
{
	atomic_fetch_add_explicit(&dev->refcnt, 1, memory_order_relaxed);
}

void ibasync_device_put(struct ibasync_device *dev)
{
	if (atomic_fetch_sub_explicit(&dev->refcnt, 1,
				      memory_order_acq_rel) == 1)
		free(dev);
}

/* ibv_node_type from the RDMA device's "node_type" ("1: CA"). */
static enum ibv_node_type read_node_type(const char *ibdev_path)
{
	char path[PATH_MAX], attr[32];
	unsigned long long v;
	char *colon;

	if (!*ibdev_path ||
	    snprintf(path, sizeof(path), "%s/node_type", ibdev_path) >=
		    (int)sizeof(path) ||
	    ibasync_read_attr(path, attr, sizeof(attr)) < 0)
		return IBV_NODE_UNKNOWN;
	colon = strchr(attr, ':');
	if (colon)
		*colon = '\0';
	if (ibasync_parse_uint(attr, IBV_NODE_UNSPECIFIED, &v) || v == 0)
		return IBV_NODE_UNKNOWN;
	return (enum ibv_node_type)v;
}

/* The transport each node type implies, as libibverbs derives it. */
static enum ibv_transport_type node_transport(enum ibv_node_type type)
{
	switch (type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

/* N of "ib_asyncN"; -1 for anything else in the class directory. */
static long class_index(const char *name)
{
	unsigned long long v;

	if (strncmp(name, IBASYNC_DEV_PREFIX, strlen(IBASYNC_DEV_PREFIX)))
		return -1;
	if (ibasync_parse_uint(name + strlen(IBASYNC_DEV_PREFIX), INT_MAX, &v))
		return -1;
	return (long)v;
}

/* ibdev: the RDMA device's name when netlink told it, else NULL (sysfs) */
static int fill_paths(struct ibasync_device *dev, const char *class_name,
		      const char *ibdev)
{
	struct ibv_device *d = &dev->device;
	char ibdev_file[PATH_MAX];
	struct stat st;

	if (snprintf(d->dev_name, sizeof(d->dev_name), "%s", class_name) >=
		    (int)sizeof(d->dev_name) ||
	    ibasync_path(d->dev_path, sizeof(d->dev_path), "%s/%s",
			 IBASYNC_CLASS_DIR, class_name) ||
	    ibasync_path(dev->node_path, sizeof(dev->node_path), "%s/%s",
			 IBASYNC_CDEV_DIR, class_name))
		return -1;

	if (ibdev)
		snprintf(d->name, sizeof(d->name), "%s", ibdev);
	else if (snprintf(ibdev_file, sizeof(ibdev_file), "%s/ibdev",
			  d->dev_path) >= (int)sizeof(ibdev_file) ||
		 ibasync_read_attr(ibdev_file, d->name, sizeof(d->name)) <= 0)
		return -1;

	/* ibdev_path only when the RDMA class device is really there */
	if (ibasync_path(d->ibdev_path, sizeof(d->ibdev_path), "%s/%s",
			 IBASYNC_IBDEV_CLASS_DIR, d->name) ||
	    stat(d->ibdev_path, &st) || !S_ISDIR(st.st_mode))
		d->ibdev_path[0] = '\0';
	return 0;
}

/*
 * Build one device from its class entry. NULL when the entry is not an
 * ib_async device or vanished meanwhile (hot unplug races enumeration);
 * such entries are skipped, not reported as errors.
 */
static struct ibasync_device *device_alloc(const char *class_name,
					   const char *ibdev)
{
	struct ibasync_device *dev;
	long index = class_index(class_name);

	if (index < 0)
		return NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	atomic_init(&dev->refcnt, 1);
	dev->index = (unsigned int)index;
	if (fill_paths(dev, class_name, ibdev)) {
		free(dev);
		return NULL;
	}
	dev->device.node_type = read_node_type(dev->device.ibdev_path);
	dev->device.transport_type = node_transport(dev->device.node_type);
	return dev;
}

static int cmp_index(const void *a, const void *b)
{
	const struct ibasync_device *x = *(struct ibasync_device *const *)a;
	const struct ibasync_device *y = *(struct ibasync_device *const *)b;

	return (x->index > y->index) - (x->index < y->index);
}

static void put_all(struct ibasync_device **devs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ibasync_device_put(devs[i]);
	free(devs);
}

/* Append dev to *devs, growing the NULL-terminated array. */
static int push_device(struct ibasync_device ***devs, size_t *n,
		       size_t *cap, struct ibasync_device *dev)
{
	if (*n + 1 >= *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct ibasync_device **p;

		p = realloc(*devs, ncap * sizeof(*p));
		if (!p)
			return -1;
		*devs = p;
		*cap = ncap;
	}
	(*devs)[(*n)++] = dev;
	(*devs)[*n] = NULL;
	return 0;
}

/*
 * Append the device of node @name to *devs. A name that is no ib_async
 * node, or one that vanished meanwhile (hot unplug races enumeration), is
 * skipped; -1 only when memory ran out.
 */
static int add_device(struct ibasync_device ***devs, size_t *n, size_t *cap,
		      const char *name, const char *ibdev)
{
	struct ibasync_device *dev;

	errno = 0;	/* only ENOMEM from device_alloc() is fatal */
	dev = device_alloc(name, ibdev);
	if (!dev)
		return errno == ENOMEM ? -1 : 0;
	if (push_device(devs, n, cap, dev)) {
		ibasync_device_put(dev);
		return -1;
	}
	return 0;
}

/*
 * The devices rdma netlink reports a node of this uAPI for. NULL with
 * errno when netlink cannot tell; the caller then reads the class.
 */
static struct ibasync_device **scan_netlink(size_t *num)
{
	struct ibasync_device **devs;
	struct ibasync_nl_dev *nl;
	size_t n = 0, cap = 1, nl_n;

	if (ibasync_test_root()) {
		errno = ENOENT;
		return NULL;
	}
	if (ibasync_nl_devices(&nl, &nl_n))
		return NULL;
	devs = calloc(1, sizeof(*devs));
	if (!devs)
		goto nomem;
	for (size_t i = 0; i < nl_n; i++) {
		if (nl[i].abi != IB_ASYNC_ABI_VERSION)
			continue;
		if (add_device(&devs, &n, &cap, nl[i].node, nl[i].ibdev))
			goto nomem;
	}
	free(nl);
	qsort(devs, n, sizeof(*devs), cmp_index);
	*num = n;
	return devs;
nomem:
	free(nl);
	if (devs)
		put_all(devs, n);
	errno = ENOMEM;
	return NULL;
}

static struct ibasync_device **scan_class(DIR *dir, size_t *num)
{
	struct ibasync_device **devs = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	/* calloc: an empty list is still a valid, NULL-terminated array */
	devs = calloc(1, sizeof(*devs));
	if (!devs)
		return NULL;
	cap = 1;
	while ((de = readdir(dir))) {
		if (add_device(&devs, &n, &cap, de->d_name, NULL))
			goto nomem;
	}
	qsort(devs, n, sizeof(*devs), cmp_index);
	*num = n;
	return devs;
nomem:
	put_all(devs, n);
	errno = ENOMEM;
	return NULL;
}

/*
 * libibasync speaks uAPI IB_ASYNC_ABI_VERSION only. As libibverbs checks
 * ib_uverbs' abi_version, a module of another version is no kernel
 * support at all, said once on stderr.
 */
static int check_abi_version(void)
{
	static atomic_bool warned;
	unsigned long long v = 0;
	char path[PATH_MAX], buf[32];

	if (ibasync_path(path, sizeof(path), "%s/abi_version",
			 IBASYNC_CLASS_DIR))
		return -1;
	if (ibasync_read_attr(path, buf, sizeof(buf)) < 0 ||
	    ibasync_parse_uint(buf, UINT32_MAX, &v) ||
	    v != IB_ASYNC_ABI_VERSION) {
		if (!atomic_exchange(&warned, true))
			fprintf(stderr,
				"libibasync: kernel ib_async ABI version %llu, library speaks %d\n",
				v, IB_ASYNC_ABI_VERSION);
		errno = ENOSYS;
		return -1;
	}
	return 0;
}

/*
 * Like rdma-core: without kernel support (here: the ib_async class is
 * absent because the module is not loaded, or it speaks another uAPI) the
 * result is NULL with errno ENOSYS; a loaded module without devices gives
 * an empty list.
 */
IBASYNC_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibasync_device **devs;
	char path[PATH_MAX];
	size_t n = 0;
	DIR *dir;

	if (num_devices)
		*num_devices = 0;
	if (ibasync_path(path, sizeof(path), "%s", IBASYNC_CLASS_DIR))
		return NULL;
	dir = opendir(path);
	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR)
			errno = ENOSYS;
		return NULL;
	}
	if (check_abi_version()) {
		closedir(dir);
		return NULL;
	}
	/* as libibverbs: netlink first, sysfs where it cannot answer */
	devs = scan_netlink(&n);
	if (!devs && errno != ENOMEM)
		devs = scan_class(dir, &n);
	closedir(dir);
	if (devs && num_devices)
		*num_devices = (int)n;
	return (struct ibv_device **)devs;
}

IBASYNC_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	if (!list)
		return;
	for (size_t i = 0; list[i]; i++)
		ibasync_device_put(to_ibasync_dev(list[i]));
	free(list);
}

IBASYNC_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

/* node_guid from sysfs, "xxxx:xxxx:xxxx:xxxx" as rdma-core parses it. */
static int guid_from_sysfs(const struct ibv_device *d, uint64_t *guid)
{
	char path[PATH_MAX], attr[32];
	unsigned short p[4];

	if (!*d->ibdev_path ||
	    snprintf(path, sizeof(path), "%s/node_guid", d->ibdev_path) >=
		    (int)sizeof(path) ||
	    ibasync_read_attr(path, attr, sizeof(attr)) < 0 ||
	    sscanf(attr, "%hx:%hx:%hx:%hx", &p[0], &p[1], &p[2], &p[3]) != 4)
		return -1;
	*guid = (uint64_t)p[0] << 48 | (uint64_t)p[1] << 32 |
		(uint64_t)p[2] << 16 | p[3];
	return 0;
}

/* Fallback when /sys/class/infiniband is not visible: ask the node. */
static int guid_from_node(const struct ibasync_device *dev, __be64 *guid)
{
	struct ib_async_info info;
	int fd, ret;

	fd = open(dev->node_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = ibasync_cmd_get_info(fd, &info);
	close(fd);
	if (ret)
		return -1;
	*guid = info.node_guid;
	return 0;
}

/* Network byte order; 0 when unknown, as rdma-core. */
IBASYNC_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	uint64_t host;
	__be64 guid;

	if (!guid_from_sysfs(device, &host))
		return htobe64(host);
	if (!guid_from_node(to_ibasync_dev(device), &guid))
		return guid;
	return 0;
}
