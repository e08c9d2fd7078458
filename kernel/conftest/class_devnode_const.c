// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_CLASS_DEVNODE_CONST: struct class's devnode() takes a const device (6.2) */
#include <linux/device.h>

static char *probe_devnode(const struct device *dev, umode_t *mode)
{
	return NULL;
}

static struct class __maybe_unused probe_class = {
	.name = "probe",
	.devnode = probe_devnode,
};
