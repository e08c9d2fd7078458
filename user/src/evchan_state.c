// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * State records of event channels (IBASYNC_CHANNEL_STATE): their records
 * are the kernel's struct ib_async_chan_state_event, 128 bytes, which do
 * not fit in place in the caller's array of 72-byte struct ibasync_event
 * as ordinary channels' do, so evchan.c reads them through a buffer on
 * the stack. A state record becomes an IBASYNC_EVENT_STATE record, and
 * its port state is kept by the channel, keyed by the record's sequence
 * number, for ibasync_get_state(): struct ibasync_event is an array
 * element of the IBASYNC_1.1 ABI and cannot grow to carry it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ib_async.h>

#include "ibasync.h"

_Static_assert(sizeof(struct ib_async_chan_state_event) ==
	       IB_ASYNC_CHAN_STATE_EVENT_SIZE_V1, "the uAPI's record");
_Static_assert((int)IBASYNC_STATE_RESYNC == (int)IB_ASYNC_STATE_RESYNC &&
	       (int)IBASYNC_STATE_LAST == (int)IB_ASYNC_STATE_LAST &&
	       (int)IBASYNC_STATE_QUERY_FAILED ==
	       (int)IB_ASYNC_STATE_QUERY_FAILED,
	       "state flags are the uAPI's");
_Static_assert((int)IBASYNC_SUB_STATE == (int)IB_ASYNC_SUB_STATE,
	       "subscription flags are the uAPI's");

struct ibasync_state_keep *ibasync_state_keep_new(void)
{
	struct ibasync_state_keep *k = calloc(1, sizeof(*k));

	if (k)
		pthread_mutex_init(&k->lock, NULL);
	return k;
}

void ibasync_state_keep_free(struct ibasync_state_keep *k)
{
	if (!k)
		return;
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/*
 * Keep a state record's payload, the oldest kept one making room. A
 * record already kept (a ring run converted again after another process
 * claimed it, see ring_take_events()) is not kept twice.
 */
void ibasync_state_keep_add(struct ibasync_state_keep *k,
			    const struct ib_async_chan_state_event *rec)
{
	struct ibasync_state_kept *s;
	unsigned int i;

	pthread_mutex_lock(&k->lock);
	for (i = 0; i < IBASYNC_STATE_KEPT; i++)
		if (k->slot[i].seq == rec->rec.event.seq)
			goto out;
	s = &k->slot[k->next];
	k->next = (k->next + 1) % IBASYNC_STATE_KEPT;
	s->seq = rec->rec.event.seq;
	s->port_num = rec->rec.event.port_num;
	s->st = rec->state;
out:
	pthread_mutex_unlock(&k->lock);
}

/* A state record as the public structure says it; its state is kept. */
void ibasync_state_to_public(const struct ib_async_chan_event *k,
			     struct ibasync_event *e)
{
	*e = (struct ibasync_event){
		.kind = IBASYNC_EVENT_STATE,
		.element.port_num = (int)k->event.port_num,
		.cookie = k->cookie,
		.occurrences = k->occurrences,
		.seq = k->event.seq,
		.timestamp_ns = k->event.timestamp_ns,
		.last_timestamp_ns = k->last_timestamp_ns,
		.port_num = k->event.port_num,
	};
}

static void port_state_to_public(const struct ib_async_port_state *k,
				 struct ibasync_port_state *out)
{
	*out = (struct ibasync_port_state){
		.flags = k->flags,
		.error = (int)k->error,
		.state = (enum ibv_port_state)k->state,
		.max_mtu = (enum ibv_mtu)k->max_mtu,
		.active_mtu = (enum ibv_mtu)k->active_mtu,
		.lid = k->lid,
		.sm_lid = k->sm_lid,
		.port_cap_flags = k->port_cap_flags,
		.gid_valid = k->gid_valid,
		.gid_gen = k->gid_gen,
		.gid_tbl_len = k->gid_tbl_len,
		.active_speed = k->active_speed,
		.pkey_tbl_len = k->pkey_tbl_len,
		.phys_state = k->phys_state,
		.active_width = k->active_width,
		.sm_sl = k->sm_sl,
		.lmc = k->lmc,
		.link_layer = k->link_layer,
		.phys_port_cnt = k->phys_port_cnt,
	};
}

IBASYNC_EXPORT int ibasync_get_state(struct ibasync_channel *channel,
				     const struct ibasync_event *event,
				     struct ibasync_port_state *out)
{
	struct ibasync_state_keep *k;
	int err = ENOENT;
	unsigned int i;

	if (!channel || !event || !out)
		return ibasync_err(EINVAL);
	k = channel->keep;
	if (!k || event->kind != IBASYNC_EVENT_STATE || !event->seq)
		return ibasync_err(ENOENT);
	pthread_mutex_lock(&k->lock);
	for (i = 0; i < IBASYNC_STATE_KEPT; i++) {
		const struct ibasync_state_kept *s = &k->slot[i];

		if (s->seq == event->seq && s->port_num == event->port_num) {
			port_state_to_public(&s->st, out);
			err = 0;
			break;
		}
	}
	pthread_mutex_unlock(&k->lock);
	return err ? ibasync_err(err) : 0;
}
