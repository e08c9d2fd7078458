// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_CLASS_ATTR_CONST: a class attribute's show() takes a const class (6.4) */
#include <linux/device.h>

static ssize_t probe_show(const struct class *class,
			  const struct class_attribute *attr, char *buf)
{
	return 0;
}

static struct class_attribute __maybe_unused probe_attr =
	__ATTR(probe, 0444, probe_show, NULL);
