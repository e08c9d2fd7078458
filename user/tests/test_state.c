// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * State records of event channels against a fake kernel: the flags the
 * library refuses itself or passes on, the 128-byte records of a state
 * channel converted from READ_BATCH and from a mapped ring, and the rules
 * of ibasync_get_state(): what it keeps, for how long, and what it does
 * not know.
 *
 * ioctl() is this program's (fake_ioctl.h). GET_INFO offers fake.features;
 * the node refuses MAP_RING (so the context keeps READ_BATCH and channels
 * may still have rings); a channel is a memfd: READ_BATCH copies from
 * fake.recs, and with IB_ASYNC_FEATURE_EVENT_RING MAP_RING lays a ring of
 * 128-byte records out in it, which this program fills as the kernel
 * would.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/ib_async.h>
#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "tap.h"

#define NRECS		80
#define ENTRIES		8
#define REC_OFF		IB_ASYNC_RING_HEADER_SIZE_V1
#define RING_BYTES	(REC_OFF + ENTRIES * sizeof(struct ib_async_chan_state_event))

static struct {
	bool on;
	uint64_t features;
	struct ib_async_create_channel create;
	struct ib_async_subscribe sub;
	struct ib_async_read_batch batch;
	int creates, subs, batches;
	int chan_fd;
	struct ib_async_chan_state_event recs[NRECS];
	unsigned int rec_next, nrecs;
	struct ib_async_ring_header *ring;	/* the channel's, mapped here */
} fake;

static int fail(int err)
{
	errno = err;
	return -1;
}

static int fake_read_batch(int fd, struct ib_async_read_batch *b)
{
	struct ib_async_chan_state_event *out = (void *)(uintptr_t)b->buf;
	uint32_t n = 0;

	fake.batches++;
	fake.batch = *b;
	if (fd != fake.chan_fd)
		return fail(EINVAL);
	if (fake.ring)
		return fail(EBUSY);
	if (fake.rec_next == fake.nrecs)
		return fail(EAGAIN);
	while (n < b->count && fake.rec_next < fake.nrecs)
		out[n++] = fake.recs[fake.rec_next++];
	b->count = n;
	return 0;
}

static int fake_map_ring(int fd, struct ib_async_map_ring *m)
{
	if (fd != fake.chan_fd || fake.ring)
		return fail(EOPNOTSUPP);	/* the node keeps READ_BATCH */
	if (ftruncate(fd, RING_BYTES))
		return -1;
	fake.ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
	if (fake.ring == MAP_FAILED) {
		fake.ring = NULL;
		return -1;
	}
	fake.ring->entries = ENTRIES;
	fake.ring->record_size = sizeof(struct ib_async_chan_state_event);
	fake.ring->records_offset = REC_OFF;
	m->entries = ENTRIES;
	m->mmap_offset = 0;
	m->mmap_size = RING_BYTES;
	return 0;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	struct ib_async_create_channel *cc = arg;
	struct ib_async_ring_wait *w = arg;
	struct ib_async_info *info;

	if (!fake.on)
		return FAKE_IOCTL_PASS;
	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		info = fake_info(arg, fake.features);
		info->queue_len = ENTRIES;
		info->phys_port_cnt = 2;
		return 0;
	case IB_ASYNC_IOC_CREATE_CHANNEL:
		fake.creates++;
		fake.create = *cc;
		fake.chan_fd = memfd_create("fake-state-channel", MFD_CLOEXEC);
		cc->fd = fake.chan_fd;
		return cc->fd < 0 ? -1 : 0;
	case IB_ASYNC_IOC_SUBSCRIBE:
		fake.subs++;
		fake.sub = *(struct ib_async_subscribe *)arg;
		((struct ib_async_subscribe *)arg)->sub_id = 1;
		return 0;
	case IB_ASYNC_IOC_READ_BATCH:
		return fake_read_batch(fd, arg);
	case IB_ASYNC_IOC_MAP_RING:
		return fake_map_ring(fd, arg);
	case IB_ASYNC_IOC_RING_WAIT:
		w->available = fake.ring->producer - fake.ring->consumer;
		return w->available ? 0 : fail(EAGAIN);
	}
	return FAKE_IOCTL_PASS;
}

/* ---- records ------------------------------------------------------------- */

/* A state record of port @port at @seq; its fields tell port and seq. */
static struct ib_async_chan_state_event srec(uint32_t port, uint64_t seq,
					     uint32_t flags)
{
	struct ib_async_chan_state_event r = {
		.rec = {
			.event = {
				.element = port, .seq = seq,
				.timestamp_ns = seq * 1000, .count = 1,
				.event_type = IB_ASYNC_EV_STATE,
				.port_num = port, .obj_type = IB_ASYNC_OBJ_PORT,
			},
			.cookie = 77, .occurrences = 1,
			.last_timestamp_ns = seq * 1000,
		},
		.state = { .flags = flags },
	};

	if (!port) {
		r.state.phys_port_cnt = 2;
		return r;
	}
	r.state = (struct ib_async_port_state){
		.flags = flags, .lid = (uint32_t)seq, .sm_lid = 0x1234,
		.gid_valid = 3, .gid_gen = 2, .gid_tbl_len = 128,
		.port_cap_flags = 0x10000, .active_speed = 0x80,
		.pkey_tbl_len = 64, .state = IBV_PORT_ACTIVE, .phys_state = 5,
		.active_width = 2, .sm_sl = 1, .active_mtu = IBV_MTU_1024,
		.max_mtu = IBV_MTU_4096, .link_layer = IBV_LINK_LAYER_ETHERNET,
		.lmc = 0,
	};
	return r;
}

static struct ib_async_chan_state_event erec(uint32_t type, uint64_t seq)
{
	struct ib_async_chan_state_event r = srec(1, seq, 0);

	r.rec.event.event_type = type;
	memset(&r.state, 0, sizeof(r.state));
	return r;
}

/* Does @s say what srec(@port, @seq, @flags) put in? */
static bool state_is(const struct ibasync_port_state *s, uint32_t port,
		     uint64_t seq, uint32_t flags)
{
	const uint32_t zero[8] = { 0 };

	if (s->flags != flags || s->error || s->reserved0 ||
	    memcmp(s->reserved, zero, sizeof(zero)))
		return false;
	if (!port)
		return s->phys_port_cnt == 2 && s->state == 0 && !s->lid;
	return s->lid == seq && s->sm_lid == 0x1234 && s->gid_valid == 3 &&
	       s->gid_gen == 2 && s->gid_tbl_len == 128 &&
	       s->port_cap_flags == 0x10000 && s->active_speed == 0x80 &&
	       s->pkey_tbl_len == 64 && s->state == IBV_PORT_ACTIVE &&
	       s->phys_state == 5 && s->active_width == 2 && s->sm_sl == 1 &&
	       s->active_mtu == IBV_MTU_1024 && s->max_mtu == IBV_MTU_4096 &&
	       s->link_layer == IBV_LINK_LAYER_ETHERNET && !s->phys_port_cnt;
}

/* ---- flags ---------------------------------------------------------------- */

static void test_flags(struct ibv_context *ctx, struct ibv_context *old)
{
	struct ibasync_subscription s = { .flags = IBASYNC_SUB_STATE };
	struct ibasync_channel *ch;
	uint32_t id;

	fake.creates = 0;
	errno = 0;
	OK(!ibasync_create_channel(old, IBASYNC_CHANNEL_STATE) &&
	   errno == EOPNOTSUPP && !fake.creates,
	   "STATE without IB_ASYNC_FEATURE_STATE: EOPNOTSUPP, not asked");
	errno = 0;
	OK(!ibasync_create_channel(old, IBASYNC_CHANNEL_STATE |
				   IBASYNC_CHANNEL_RESYNC) &&
	   errno == EOPNOTSUPP && !fake.creates,
	   "STATE | RESYNC without the feature: EOPNOTSUPP");
	errno = 0;
	OK(!ibasync_create_channel(ctx, IBASYNC_CHANNEL_RESYNC) &&
	   errno == EINVAL && !fake.creates, "RESYNC without STATE: EINVAL");
	errno = 0;
	OK(!ibasync_create_channel(ctx, 1U << 4) && errno == EINVAL &&
	   !fake.creates, "an unknown flag: EINVAL");

	ch = ibasync_create_channel(old, 0);
	fake.subs = 0;
	OK(ch && ibasync_subscribe(ch, &s, &id) == EINVAL && !fake.subs,
	   "SUB_STATE on a channel without STATE: EINVAL, not asked");
	ibasync_destroy_channel(ch);

	fake.creates = 0;
	ch = ibasync_create_channel(ctx, IBASYNC_CHANNEL_STATE |
				    IBASYNC_CHANNEL_RESYNC);
	OK(ch && fake.creates == 1 &&
	   fake.create.flags == (IB_ASYNC_CHANNEL_STATE |
				 IB_ASYNC_CHANNEL_RESYNC) &&
	   fake.create.type == IB_ASYNC_CHANNEL_EVENT,
	   "STATE | RESYNC: passed on");
	s = (struct ibasync_subscription){
		.flags = IBASYNC_SUB_STATE | IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_CQ,
	};
	OK(ibasync_subscribe(ch, &s, &id) == EINVAL && !fake.subs,
	   "SUB_STATE with SUB_OBJECT: EINVAL, not asked");
	s = (struct ibasync_subscription){
		.flags = IBASYNC_SUB_STATE | IBASYNC_SUB_PORT, .port_num = 2,
		.cookie = 5,
	};
	OK(!ibasync_subscribe(ch, &s, &id) && fake.subs == 1 &&
	   fake.sub.flags == (IB_ASYNC_SUB_STATE | IB_ASYNC_SUB_PORT) &&
	   fake.sub.port == 2 && fake.sub.cookie == 5,
	   "SUB_STATE | SUB_PORT on a state channel: passed on");
	ibasync_destroy_channel(ch);
}

/* ---- READ_BATCH ----------------------------------------------------------- */

static void test_batch(struct ibv_context *ctx)
{
	/* the fake reads the last channel made: the state one */
	struct ibasync_channel *plain = ibasync_create_channel(ctx, 0);
	struct ibasync_channel *ch = ibasync_create_channel(ctx,
							    IBASYNC_CHANNEL_STATE);
	struct ibasync_event ev[NRECS], guard;
	struct ibasync_port_state st;
	bool ok;
	int n, i, got;

	fake.recs[0] = srec(0, 1, 0);
	fake.recs[1] = srec(1, 2, 0);
	fake.recs[2] = srec(2, 3, IB_ASYNC_STATE_LAST);
	fake.recs[3] = erec(IBV_EVENT_PORT_ERR, 4);
	fake.recs[4] = (struct ib_async_chan_state_event){ .rec.event = {
		.seq = 5, .count = 9, .event_type = IB_ASYNC_EV_OVERFLOW,
		.obj_type = IB_ASYNC_OBJ_NONE } };
	fake.recs[5] = srec(1, 14, IB_ASYNC_STATE_RESYNC |
			    IB_ASYNC_STATE_LAST);
	fake.nrecs = 6;
	fake.rec_next = 0;
	fake.batches = 0;

	memset(ev, 0xa5, sizeof(ev));
	guard = ev[4];
	n = ibasync_get_events(ch, ev, 4, IBASYNC_GET_NONBLOCK);
	OK(n == 4 && fake.batches == 1 && fake.batch.count == 4 &&
	   fake.batch.buf != (uintptr_t)ev &&
	   fake.batch.flags == IB_ASYNC_READ_NONBLOCK,
	   "state channel, n 4: one READ_BATCH of 4, into a buffer of its own");
	OK(!memcmp(&ev[4], &guard, sizeof(guard)),
	   "nothing written past what was returned");
	OK(ev[0].kind == IBASYNC_EVENT_STATE && ev[0].port_num == 0 &&
	   ev[0].element.port_num == 0 && ev[0].seq == 1 &&
	   ev[0].cookie == 77 && ev[0].occurrences == 1 && !ev[0].lost &&
	   ev[0].event_type == 0 && ev[0].timestamp_ns == 1000 &&
	   ev[0].last_timestamp_ns == 1000,
	   "device's state record: kind STATE, port 0, seq, cookie, "
	   "occurrences 1");
	OK(ev[1].kind == IBASYNC_EVENT_STATE && ev[1].port_num == 1 &&
	   ev[1].element.port_num == 1 && ev[1].seq == 2 &&
	   ev[2].kind == IBASYNC_EVENT_STATE && ev[2].port_num == 2 &&
	   ev[2].seq == 3, "ports' state records, in order");
	OK(ev[3].kind == IBASYNC_EVENT_ASYNC &&
	   ev[3].event_type == IBV_EVENT_PORT_ERR && ev[3].seq == 4 &&
	   ev[3].element.port_num == 1 && ev[3].cookie == 77,
	   "an event after them, from a 128-byte record");
	OK(!ibasync_get_state(ch, &ev[0], &st) && state_is(&st, 0, 1, 0),
	   "get_state of the device's record: phys_port_cnt, flags");
	OK(!ibasync_get_state(ch, &ev[1], &st) && state_is(&st, 1, 2, 0),
	   "get_state of port 1: every field in rdma-core's terms");
	OK(!ibasync_get_state(ch, &ev[2], &st) &&
	   state_is(&st, 2, 3, IBASYNC_STATE_LAST), "port 2: flagged LAST");
	errno = 0;
	OK(ibasync_get_state(ch, &ev[3], &st) == ENOENT && errno == ENOENT,
	   "get_state of an event: ENOENT");

	n = ibasync_get_events(ch, ev, NRECS, IBASYNC_GET_NONBLOCK);
	OK(n == 2 && ev[0].kind == IBASYNC_EVENT_OVERFLOW && ev[0].lost == 9 &&
	   ev[0].seq == 5 && ev[1].kind == IBASYNC_EVENT_STATE &&
	   ev[1].seq == 14 && ev[1].port_num == 1,
	   "an overflow record, then the resync's record");
	OK(!ibasync_get_state(ch, &ev[1], &st) &&
	   state_is(&st, 1, 14, IBASYNC_STATE_RESYNC | IBASYNC_STATE_LAST),
	   "the resync's state: flagged RESYNC and LAST");
	guard = (struct ibasync_event){ .kind = IBASYNC_EVENT_STATE,
					.seq = 2, .port_num = 1 };
	OK(!ibasync_get_state(ch, &guard, &st) && state_is(&st, 1, 2, 0),
	   "a record of an earlier call is still kept");
	guard.port_num = 2;
	OK(ibasync_get_state(ch, &guard, &st) == ENOENT,
	   "its seq with another port: ENOENT");
	guard.port_num = 1;
	OK(ibasync_get_state(plain, &guard, &st) == ENOENT,
	   "the same record asked of a channel without STATE: ENOENT");
	OK(ibasync_get_state(NULL, &guard, &st) == EINVAL &&
	   ibasync_get_state(ch, NULL, &st) == EINVAL &&
	   ibasync_get_state(ch, &guard, NULL) == EINVAL,
	   "NULL arguments: EINVAL");

	/* 70 more state records, seq 100..169, read 5 at a time */
	for (i = 0; i < 70; i++)
		fake.recs[i] = srec(1 + i % 2, 100 + (uint64_t)i, 0);
	fake.nrecs = 70;
	fake.rec_next = 0;
	fake.batches = 0;
	ok = true;
	for (got = 0; got < 70; got += n) {
		n = ibasync_get_events(ch, ev + got, 70 - got < 5 ? 70 - got : 5,
				       IBASYNC_GET_NONBLOCK);
		if (n < 1)
			break;
	}
	for (i = 0; i < got; i++)
		ok &= ev[i].kind == IBASYNC_EVENT_STATE &&
		      ev[i].seq == 100 + (uint64_t)i;
	OK(got == 70 && ok && fake.batches == 14,
	   "70 state records over 14 calls, in order");
	ok = true;
	for (i = 70 - IBASYNC_STATE_KEPT; i < 70; i++)
		ok &= !ibasync_get_state(ch, &ev[i], &st) &&
		      state_is(&st, 1 + (uint32_t)i % 2, 100 + (uint64_t)i, 0);
	OK(ok, "the latest IBASYNC_STATE_KEPT (%d) are kept",
	   IBASYNC_STATE_KEPT);
	ok = true;
	for (i = 0; i < 70 - IBASYNC_STATE_KEPT; i++)
		ok &= ibasync_get_state(ch, &ev[i], &st) == ENOENT;
	OK(ok, "older ones were evicted: ENOENT");
	guard.seq = 14;
	OK(ibasync_get_state(ch, &guard, &st) == ENOENT,
	   "so was the resync's record");

	/* more than the library's batch in one call: nothing lost */
	for (i = 0; i < 40; i++)
		fake.recs[i] = i % 3 ? erec(IBV_EVENT_LID_CHANGE, 200 + (uint64_t)i)
				     : srec(1, 200 + (uint64_t)i, 0);
	fake.nrecs = 40;
	fake.rec_next = 0;
	ok = true;
	for (got = 0; got < 40; got += n) {
		n = ibasync_get_events(ch, ev + got, NRECS - got,
				       IBASYNC_GET_NONBLOCK);
		if (n < 1 || fake.batch.count > 16)
			break;
	}
	for (i = 0; i < got; i++)
		ok &= ev[i].seq == 200 + (uint64_t)i &&
		      ev[i].kind == (i % 3 ? IBASYNC_EVENT_ASYNC :
				     IBASYNC_EVENT_STATE);
	OK(got == 40 && ok,
	   "n 80 with 40 mixed records: all of them, in order, 16 at most "
	   "per READ_BATCH");
	ibasync_destroy_channel(plain);
	ibasync_destroy_channel(ch);
}

/* ---- the ring --------------------------------------------------------------- */

static void publish(const struct ib_async_chan_state_event *r)
{
	uint32_t prod = fake.ring->producer;

	memcpy((unsigned char *)fake.ring + REC_OFF +
	       (prod & (ENTRIES - 1)) * sizeof(*r), r, sizeof(*r));
	__atomic_store_n(&fake.ring->producer, prod + 1, __ATOMIC_RELEASE);
}

static void test_ring(struct ibv_context *ctx)
{
	struct ibasync_channel *ch = ibasync_create_channel(ctx,
							    IBASYNC_CHANNEL_STATE);
	struct ibasync_event ev[2 * ENTRIES];
	struct ibasync_port_state st;
	struct ib_async_chan_state_event r;
	bool ok = true;
	int n, i, round;

	fake.batches = 0;
	errno = 0;
	n = ibasync_get_events(ch, ev, 4, IBASYNC_GET_NONBLOCK);
	if (!OK(n == -1 && errno == EAGAIN && fake.ring && !fake.batches &&
		fake.ring->record_size == sizeof(r),
		"a state channel's ring of 128-byte records: mapped, empty"))
		goto out;
	/* three rounds of 6: the second and third wrap */
	for (round = 0; round < 3; round++) {
		uint64_t seq = 1 + (uint64_t)round * 6;

		r = srec(0, seq, 0);
		publish(&r);
		r = srec(1, seq + 1, 0);
		publish(&r);
		r = srec(2, seq + 2, IB_ASYNC_STATE_LAST);
		publish(&r);
		r = erec(IBV_EVENT_PORT_ERR, seq + 3);
		publish(&r);
		r = erec(IBV_EVENT_PORT_ACTIVE, seq + 4);
		publish(&r);
		r = srec(1, seq + 5, IB_ASYNC_STATE_RESYNC);
		publish(&r);
		memset(ev, 0xa5, sizeof(ev));
		n = ibasync_get_events(ch, ev, 2 * ENTRIES, IBASYNC_GET_NONBLOCK);
		ok &= n == 6 && fake.ring->consumer == (uint32_t)(6 * round + 6);
		for (i = 0; i < n; i++)
			ok &= ev[i].seq == seq + (uint64_t)i;
		ok &= ev[0].kind == IBASYNC_EVENT_STATE && ev[0].port_num == 0 &&
		      ev[2].kind == IBASYNC_EVENT_STATE && ev[2].port_num == 2 &&
		      ev[3].kind == IBASYNC_EVENT_ASYNC &&
		      ev[3].event_type == IBV_EVENT_PORT_ERR &&
		      ev[4].event_type == IBV_EVENT_PORT_ACTIVE &&
		      ev[5].kind == IBASYNC_EVENT_STATE && ev[5].cookie == 77;
		ok &= !ibasync_get_state(ch, &ev[0], &st) &&
		      state_is(&st, 0, seq, 0) &&
		      !ibasync_get_state(ch, &ev[2], &st) &&
		      state_is(&st, 2, seq + 2, IBASYNC_STATE_LAST) &&
		      !ibasync_get_state(ch, &ev[5], &st) &&
		      state_is(&st, 1, seq + 5, IBASYNC_STATE_RESYNC) &&
		      ibasync_get_state(ch, &ev[3], &st) == ENOENT;
	}
	OK(ok && !fake.batches,
	   "ring: 128-byte records converted at their stride, across the "
	   "wrap, state kept, no READ_BATCH");
out:
	ibasync_destroy_channel(ch);
	if (fake.ring)
		munmap(fake.ring, RING_BYTES);
	fake.ring = NULL;
}

int main(void)
{
	struct ibv_context *ctx, *old, *rctx;
	struct ft_fake0 ft;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	fake.on = true;
	fake.features = IB_ASYNC_FEATURE_READ_BATCH |
			IB_ASYNC_FEATURE_EVENT_CHANNEL;
	old = ft_fake0_open(&ft);
	fake.features |= IB_ASYNC_FEATURE_STATE;
	ctx = ft_fake0_open(&ft);
	fake.features |= IB_ASYNC_FEATURE_EVENT_RING;
	rctx = ft_fake0_open(&ft);
	if (!OK(ctx && old && rctx, "open fake0 three times"))
		return tap_done();
	test_flags(ctx, old);
	test_batch(ctx);
	test_ring(rctx);
	fake.on = false;
	ibv_close_device(rctx);
	ibv_close_device(old);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}
