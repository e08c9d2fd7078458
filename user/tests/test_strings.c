// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_event_type_str(), ibv_wc_status_str(), ibv_port_state_str() and
 * ibv_node_type_str() against rdma-core's own, loaded from the installed
 * libibverbs.so.1 with dlopen (RTLD_LOCAL, so it cannot interpose on us).
 */
#include <dlfcn.h>
#include <limits.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "tap.h"

typedef const char *(*type_str_fn)(enum ibv_event_type);
/* every one of these takes an enum, passed as an int */
typedef const char *(*int_str_fn)(int);

static void compare(type_str_fn theirs, int v)
{
	const char *a = ibv_event_type_str((enum ibv_event_type)v);
	const char *b = theirs((enum ibv_event_type)v);

	OK(a && b && !strcmp(a, b), "event type %d: \"%s\" == rdma-core \"%s\"",
	   v, a ? a : "(null)", b ? b : "(null)");
}

static void compare_fn(void *h, const char *name, int_str_fn ours, int lo,
		       int hi)
{
	int_str_fn theirs = (int_str_fn)dlvsym(h, name, "IBVERBS_1.1");
	int v;

	if (!OK(theirs && theirs != ours, "libibverbs exports %s@IBVERBS_1.1",
		name))
		return;
	for (v = lo; v <= hi; v++) {
		const char *a = ours(v), *b = theirs(v);

		OK(a && b && !strcmp(a, b), "%s(%d): \"%s\" == rdma-core \"%s\"",
		   name, v, a ? a : "(null)", b ? b : "(null)");
	}
}

int main(void)
{
	static const int extra[] = { INT_MIN, -1000, 1000, 0x10000, INT_MAX };
	void *h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	type_str_fn theirs;

	if (!h) {
		tap_skip("libibverbs.so.1 not installed");
		return tap_done();
	}
	theirs = (type_str_fn)dlvsym(h, "ibv_event_type_str", "IBVERBS_1.1");
	if (!OK(theirs, "libibverbs exports ibv_event_type_str@IBVERBS_1.1"))
		return tap_done();
	OK(theirs != ibv_event_type_str, "comparing against libibverbs, not ourselves");
	for (int v = -2; v <= 24; v++)
		compare(theirs, v);
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		compare(theirs, extra[i]);
	compare_fn(h, "ibv_wc_status_str", (int_str_fn)ibv_wc_status_str,
		   -1, 26);
	compare_fn(h, "ibv_port_state_str", (int_str_fn)ibv_port_state_str,
		   -1, 7);
	compare_fn(h, "ibv_node_type_str", (int_str_fn)ibv_node_type_str,
		   -2, 9);
	dlclose(h);
	return tap_done();
}
