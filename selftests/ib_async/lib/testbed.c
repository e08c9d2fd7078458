// SPDX-License-Identifier: GPL-2.0
/* The bodies of iba_testbed.h's helpers. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iba_testbed.h"

int iba_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

int iba_dev_of(const char *ibdev, struct iba_dev *dev)
{
	char path[PATH_MAX], name[64];
	struct dirent *de;
	int ret = -1;
	DIR *d;

	d = opendir(IBA_CLASS_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "ib_async", 8))
			continue;
		snprintf(path, sizeof(path), IBA_CLASS_DIR "/%s/ibdev",
			 de->d_name);
		if (iba_read_line(path, name, sizeof(name)) ||
		    (ibdev && strcmp(name, ibdev)))
			continue;
		snprintf(dev->node, sizeof(dev->node), "/dev/infiniband/%s",
			 de->d_name);
		snprintf(dev->ibdev, sizeof(dev->ibdev), "%s", name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/*
 * Every slot of the port's GID table is looked at, up to the first index
 * sysfs has no file for (the table's end): the GID is not always among the
 * first 16. Addresses come and go on veth0 while rxe0 exists (the fuzzer's
 * gid-change adds and deletes others), and an rxe0 added again takes the
 * addresses veth0 has in its own order, so the IPv4 one may land on a
 * later slot. Slots before it are the same whatever the bound, so a
 * caller that found it among the first 16 finds the same one.
 */
int iba_roce_v2_gid(const char *ibdev, uint8_t gid[16])
{
	char path[256], type[32], text[64];
	int i, j;

	for (i = 0; ; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			 ibdev, i);
		if (access(path, F_OK))
			return -1;
		if (iba_read_line(path, type, sizeof(type)) ||
		    strcmp(type, "RoCE v2"))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gids/%d", ibdev, i);
		if (iba_read_line(path, text, sizeof(text)) ||
		    strncmp(text, "0000:0000:0000:0000:0000:ffff:", 30))
			continue;
		for (j = 0; j < 8; j++) {
			unsigned int w;

			if (sscanf(text + 5 * j, "%4x", &w) != 1)
				return -1;
			gid[2 * j] = w >> 8;
			gid[2 * j + 1] = w & 0xff;
		}
		return i;
	}
}
