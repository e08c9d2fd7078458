// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Several threads in ibv_get_async_event() on one context: every event
 * reaches exactly one of them, and overflow counts add up.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/ib_async_shim.h>
#include <infiniband/verbs.h>

#include "fake_tree.h"
#include "tap.h"

#define READERS	4
#define EVENTS	20000
#define OVF_EVERY 1000
#define OVF_COUNT 3

struct reader {
	pthread_t tid;
	struct ibv_context *ctx;
	unsigned char *seen;	/* private: merged after join */
	int errors;
};

static void *reader(void *arg)
{
	struct reader *r = arg;
	struct ibv_async_event ev;

	for (;;) {
		if (ibv_get_async_event(r->ctx, &ev)) {
			r->errors++;
			return NULL;
		}
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return NULL;	/* one end marker per reader */
		if (ev.element.port_num < 1 || ev.element.port_num > EVENTS)
			r->errors++;
		else
			r->seen[ev.element.port_num]++;
	}
}

static int writer(int w)
{
	uint64_t seq = 1;

	for (int i = 1; i <= EVENTS; i++) {
		if (i % OVF_EVERY == 0 &&
		    ft_write_event(w, IB_ASYNC_EV_OVERFLOW, 0, seq, OVF_COUNT, 0,
				   IB_ASYNC_OBJ_NONE))
			return -1;
		if (ft_write_event(w, IBV_EVENT_PORT_ACTIVE, (uint64_t)i, seq++,
				   1, 1, IB_ASYNC_OBJ_PORT))
			return -1;
	}
	for (int i = 0; i < READERS; i++)
		if (ft_write_event(w, IBV_EVENT_DEVICE_FATAL, 0, seq++, 1, 0,
				   IB_ASYNC_OBJ_PORT))
			return -1;
	return 0;
}

int main(void)
{
	struct reader r[READERS];
	struct ibv_device **list;
	struct ibv_context *ctx;
	int w, once = 0, dup = 0, missing = 0, errors = 0;
	char *root = ft_create(true);

	if (!root || ft_add_device(root, 0, "fake0", NULL, NULL))
		return OK(0, "fake tree"), tap_done();
	list = ibv_get_device_list(NULL);
	ctx = list && list[0] ? ibv_open_device(list[0]) : NULL;
	w = ft_open_writer(root, 0);
	if (!OK(ctx && w >= 0, "open fake0"))
		return tap_done();
	for (int i = 0; i < READERS; i++) {
		r[i] = (struct reader){ .ctx = ctx,
					.seen = calloc(EVENTS + 1, 1) };
		pthread_create(&r[i].tid, NULL, reader, &r[i]);
	}
	OK(writer(w) == 0, "writer wrote %d events", EVENTS);
	for (int i = 0; i < READERS; i++) {
		pthread_join(r[i].tid, NULL);
		errors += r[i].errors;
	}
	for (int e = 1; e <= EVENTS; e++) {
		int n = 0;

		for (int i = 0; i < READERS; i++)
			n += r[i].seen[e];
		once += n == 1;
		dup += n > 1;
		missing += n == 0;
	}
	OK(errors == 0, "no read errors");
	OK(once == EVENTS && !dup && !missing,
	   "each event delivered once (%d once, %d duplicated, %d missing)",
	   once, dup, missing);
	OK(ibasync_lost_events(ctx) == (uint64_t)EVENTS / OVF_EVERY * OVF_COUNT,
	   "lost counter exact under concurrency");
	for (int i = 0; i < READERS; i++)
		free(r[i].seen);
	ibv_close_device(ctx);
	close(w);
	ibv_free_device_list(list);
	ft_destroy(root);
	return tap_done();
}
