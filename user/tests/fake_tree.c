// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fake_tree.h"

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	return mkdir(buf, 0755) && access(buf, F_OK) ? -1 : 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

char *ft_create(bool with_class)
{
	char tmpl[] = "/tmp/ibasync-test.XXXXXX", path[PATH_MAX], text[16];
	char *root = mkdtemp(tmpl);

	if (!root)
		return NULL;
	root = strdup(root);
	snprintf(path, sizeof(path), "%s/dev/infiniband", root);
	if (!root || mkdirs(path))
		return NULL;
	snprintf(path, sizeof(path), "%s/sys/class/ib_async", root);
	if (with_class && mkdirs(path))
		return NULL;
	snprintf(path, sizeof(path), "%s/sys/class/ib_async/abi_version", root);
	snprintf(text, sizeof(text), "%d\n", IB_ASYNC_ABI_VERSION);
	if (with_class && write_file(path, text))
		return NULL;
	setenv("IBASYNC_TEST_ROOT", root, 1);
	return root;
}

int ft_add_device(const char *root, unsigned int n, const char *ibdev,
		  const char *node_type, const char *node_guid)
{
	char path[PATH_MAX], text[128];

	snprintf(path, sizeof(path), "%s/sys/class/ib_async/ib_async%u", root, n);
	if (mkdirs(path))
		return -1;
	snprintf(path, sizeof(path), "%s/sys/class/ib_async/ib_async%u/ibdev",
		 root, n);
	snprintf(text, sizeof(text), "%s\n", ibdev);
	if (write_file(path, text))
		return -1;
	snprintf(path, sizeof(path), "%s/dev/infiniband/ib_async%u", root, n);
	if (mkfifo(path, 0600))
		return -1;
	if (!node_type && !node_guid)
		return 0;
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", root, ibdev);
	if (mkdirs(path))
		return -1;
	if (node_type) {
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/node_type",
			 root, ibdev);
		snprintf(text, sizeof(text), "%s\n", node_type);
		if (write_file(path, text))
			return -1;
	}
	if (node_guid) {
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/node_guid",
			 root, ibdev);
		snprintf(text, sizeof(text), "%s\n", node_guid);
		if (write_file(path, text))
			return -1;
	}
	return 0;
}

int ft_open_writer(const char *root, unsigned int n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/dev/infiniband/ib_async%u", root, n);
	return open(path, O_RDWR | O_CLOEXEC);
}

int ft_write_event(int fd, uint32_t type, uint64_t element, uint64_t seq,
		   uint64_t count, uint32_t port, uint32_t obj_type)
{
	struct ib_async_event ev = {
		.element = element, .seq = seq, .timestamp_ns = seq * 1000,
		.count = count, .event_type = type, .port_num = port,
		.obj_type = obj_type,
	};

	return write(fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

void ft_destroy(char *root)
{
	if (!root)
		return;
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("IBASYNC_TEST_ROOT");
	free(root);
}

int ft_fake0_setup(struct ft_fake0 *f)
{
	*f = (struct ft_fake0){ .root = ft_create(true) };
	if (!f->root || ft_add_device(f->root, 0, "fake0", "1: CA", NULL)) {
		ft_destroy(f->root);
		return -1;
	}
	f->list = ibv_get_device_list(NULL);
	f->dev = f->list ? f->list[0] : NULL;
	return 0;
}

int ft_fake0_node_as_file(const struct ft_fake0 *f)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/dev/infiniband/ib_async0", f->root);
	if (unlink(path))
		return -1;
	return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
}

struct ibv_context *ft_fake0_open(const struct ft_fake0 *f)
{
	return f->dev ? ibv_open_device(f->dev) : NULL;
}

void ft_fake0_teardown(struct ft_fake0 *f)
{
	ibv_free_device_list(f->list);
	ft_destroy(f->root);
}
