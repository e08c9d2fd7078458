/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What ibv_get_async_event() must put in ibv_async_event.element for each
 * event type, and which counter ibv_ack_async_event() must move, written
 * out from libibverbs' device.c rather than taken from the library under
 * test; and the objects whose addresses fake records carry as user_handles.
 */
#ifndef IBASYNC_TEST_EXPECT_ELEMENT_H
#define IBASYNC_TEST_EXPECT_ELEMENT_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

/*
 * 'c' CQ, 'q' QP, 's' SRQ, 'w' WQ, 'p' the port: types 0..20, then the
 * port for every newer type, as libibverbs does.
 */
static inline char expected_kind(uint32_t t)
{
	static const char kinds[] = "cqqqqqqqppppppssqppwp";

	return t < sizeof(kinds) - 1 ? kinds[t] : 'p';
}

struct expect_objects {
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_wq wq;
};

/* The mutexes and conds an ack takes in a process of several threads. */
static inline void expect_objects_init(struct expect_objects *o)
{
	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->cq.mutex, NULL);
	pthread_cond_init(&o->cq.cond, NULL);
	pthread_mutex_init(&o->qp.mutex, NULL);
	pthread_cond_init(&o->qp.cond, NULL);
	pthread_mutex_init(&o->srq.mutex, NULL);
	pthread_cond_init(&o->srq.cond, NULL);
	pthread_mutex_init(&o->wq.mutex, NULL);
	pthread_cond_init(&o->wq.cond, NULL);
}

/* The object an event of type @t names; NULL for a port event. */
static inline void *expected_object(struct expect_objects *o, uint32_t t)
{
	switch (expected_kind(t)) {
	case 'c': return &o->cq;
	case 'q': return &o->qp;
	case 's': return &o->srq;
	case 'w': return &o->wq;
	default:  return NULL;
	}
}

/* The counter the ack of an event of type @t moves; NULL for a port. */
static inline uint32_t *expected_acks(struct expect_objects *o, uint32_t t)
{
	switch (expected_kind(t)) {
	case 'c': return &o->cq.async_events_completed;
	case 'q': return &o->qp.events_completed;
	case 's': return &o->srq.events_completed;
	case 'w': return &o->wq.events_completed;
	default:  return NULL;
	}
}

/* Every ack counted on any of the objects, completion events included. */
static inline uint32_t expect_acks_total(const struct expect_objects *o)
{
	return o->cq.async_events_completed + o->cq.comp_events_completed +
	       o->qp.events_completed + o->srq.events_completed +
	       o->wq.events_completed;
}

#endif
