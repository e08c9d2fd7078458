// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Mapped event rings against a fake kernel: the context's ring taken by
 * ibv_get_async_event(), a destroy's marking of its object's records,
 * an event channel's ring taken by ibasync_get_events(), and the cases
 * that keep READ_BATCH (IBASYNC_NO_RING, a coalescing channel, a ring
 * that cannot be mapped).
 *
 * The node of the fake tree is made a regular file here, and a channel's
 * file is a memfd: both can be mmap()ed, and this program maps them too,
 * writing records and the producer count as the kernel would. ioctl() is
 * this program's (fake_ioctl.h): GET_INFO offers rings, MAP_RING answers
 * offset 0, RING_WAIT moves fake.pending records into the ring, and
 * READ_BATCH fails with EBUSY as it does on a ring queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>
#include <infiniband/verbs.h>

#include "expect_element.h"
#include "fake_ioctl.h"
#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

#define ENTRIES		8
#define MAX_PENDING	(ENTRIES + 2)
#define REC_OFF		IB_ASYNC_RING_HEADER_SIZE_V1

/* What this program plays the kernel for: the node's ring or a channel's. */
struct fake_ring {
	int fd;
	size_t rec_size;
	struct ib_async_ring_header *hdr;	/* this program's mapping */
	/* records waiting in the "kernel queue" for RING_WAIT */
	unsigned char pending[MAX_PENDING][sizeof(struct ib_async_chan_event)];
	unsigned int npending;
};

static struct {
	bool on;
	struct fake_ring node, chan;
	int maps, batches, waits;
	struct ib_async_map_ring map;		/* the last MAP_RING asked */
	struct ib_async_ring_wait wait;		/* the last RING_WAIT asked */
	bool bad_header;	/* MAP_RING answers a size too small */
	int wait_err;		/* RING_WAIT fails with it when set */
	uint64_t reported;	/* DESTROY's events_reported */
	uint32_t handles;	/* the last CREATE_CQ's */
	int qlen_fd;		/* the last SET_QUEUE_LEN's file, and length */
	uint32_t qlen;
} fake;

static size_t ring_bytes(size_t rec_size)
{
	return REC_OFF + ENTRIES * rec_size;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static struct fake_ring *ring_of(int fd)
{
	if (fd == fake.chan.fd)
		return &fake.chan;
	return &fake.node;	/* the node, under either of its descriptors */
}

/* Set up the file behind @r as the kernel lays a ring out. */
static int fake_map_ring(struct fake_ring *r, struct ib_async_map_ring *m)
{
	size_t len = ring_bytes(r->rec_size);

	fake.maps++;
	fake.map = *m;
	if (m->entries != ENTRIES)
		return fail(EINVAL);	/* the test sizes every queue so */
	if (r->hdr)
		return fail(EBUSY);
	if (ftruncate(r->fd, (off_t)len))
		return -1;
	r->hdr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->hdr == MAP_FAILED) {
		r->hdr = NULL;
		return -1;
	}
	memset(r->hdr, 0, len);
	r->hdr->entries = ENTRIES;
	r->hdr->record_size = (uint32_t)r->rec_size;
	r->hdr->records_offset = REC_OFF;
	m->mmap_offset = 0;
	m->mmap_size = fake.bad_header ? len - 1 : len;
	return 0;
}

/* Publish @rec as the kernel does: the record, then the producer count. */
static bool publish(struct fake_ring *r, const void *rec)
{
	uint32_t prod = r->hdr->producer;

	if (prod - __atomic_load_n(&r->hdr->consumer, __ATOMIC_ACQUIRE) ==
	    ENTRIES)
		return false;
	memcpy((unsigned char *)r->hdr + REC_OFF +
	       (prod & (ENTRIES - 1)) * r->rec_size, rec, r->rec_size);
	__atomic_store_n(&r->hdr->producer, prod + 1, __ATOMIC_RELEASE);
	return true;
}

static int fake_ring_wait(struct fake_ring *r, struct ib_async_ring_wait *w)
{
	unsigned int i, moved = 0;

	fake.waits++;
	fake.wait = *w;
	if (!r->hdr || w->available || w->reserved)
		return fail(EINVAL);	/* available is out only */
	while (moved < r->npending && publish(r, r->pending[moved]))
		moved++;
	r->npending -= moved;
	for (i = 0; i < r->npending; i++)
		memcpy(r->pending[i], r->pending[i + moved], r->rec_size);
	w->available = r->hdr->producer - r->hdr->consumer;
	if (w->available)
		return 0;
	return fail(fake.wait_err ? fake.wait_err : EAGAIN);
}

static int fake_answer(int fd, unsigned long req, void *arg)
{
	struct ib_async_info *info;
	struct ib_async_create_channel *cc = arg;
	struct ib_async_destroy *d = arg;

	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		info = fake_info(arg, IB_ASYNC_FEATURE_READ_BATCH |
				      IB_ASYNC_FEATURE_EVENT_CHANNEL |
				      IB_ASYNC_FEATURE_EVENT_RING);
		info->queue_len = ENTRIES;
		return 0;
	case IB_ASYNC_IOC_MAP_RING:
		return fake_map_ring(ring_of(fd), arg);
	case IB_ASYNC_IOC_RING_WAIT:
		return fake_ring_wait(ring_of(fd), arg);
	case IB_ASYNC_IOC_READ_BATCH:
		fake.batches++;
		return fail(ring_of(fd)->hdr ? EBUSY : EAGAIN);
	case IB_ASYNC_IOC_DESTROY:
		d->events_reported = fake.reported;
		d->comp_events_reported = 0;
		return 0;
	case IB_ASYNC_IOC_CREATE_CHANNEL:
		fake.chan.fd = memfd_create("fake-channel", MFD_CLOEXEC);
		fake.chan.hdr = NULL;
		fake.chan.npending = 0;
		cc->fd = fake.chan.fd;
		return cc->fd < 0 ? -1 : 0;
	case IB_ASYNC_IOC_CREATE_CQ:
		((struct ib_async_create_cq *)arg)->handle = ++fake.handles;
		return 0;
	case IB_ASYNC_IOC_SUBSCRIBE:
		return 0;
	case IB_ASYNC_IOC_SET_QUEUE_LEN:
		fake.qlen_fd = fd;
		fake.qlen = ((struct ib_async_queue_len *)arg)->queue_len;
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	return fake.on ? fake_answer(fd, req, arg) : FAKE_IOCTL_PASS;
}

static void fake_unmap(struct fake_ring *r)
{
	if (r->hdr)
		munmap(r->hdr, ring_bytes(r->rec_size));
	r->hdr = NULL;
	r->npending = 0;
	/* its number may come back as the node's */
	if (r == &fake.chan)
		r->fd = -1;
}

/* ---- records --------------------------------------------------------- */

static struct ib_async_event rec(uint32_t type, uint64_t element,
				 uint32_t obj_type, uint32_t handle,
				 uint64_t seq)
{
	return (struct ib_async_event){
		.element = element, .seq = seq, .count = 1,
		.event_type = type, .port_num = 1, .obj_type = obj_type,
		.obj_handle = handle,
	};
}

static struct ib_async_chan_event crec(struct ib_async_event e)
{
	return (struct ib_async_chan_event){
		.event = e, .cookie = e.seq + 100, .occurrences = 1,
	};
}

static int get(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	return ibv_get_async_event(ctx, ev);
}

/* ---- the context's ring ------------------------------------------------ */

static void test_node_ring(struct ibv_context *ctx)
{
	struct ibasync_context *c = to_ibasync_ctx(ctx);
	struct ib_async_event e, ovf = {
		.seq = 4, .count = 5, .event_type = IB_ASYNC_EV_OVERFLOW,
	};
	struct ibv_qp qp = { .context = ctx, .handle = 7 };
	struct ibv_cq *cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibv_async_event ev;
	unsigned int i;
	bool ok = true;

	OK(c->ev_ring.hdr && fake.maps == 1 && fake.map.entries == ENTRIES &&
	   fake.map.argsz == sizeof(fake.map) && fake.map.flags == 0,
	   "open: one MAP_RING of the queue's length, mapped");
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);

	e = rec(IBV_EVENT_PORT_ERR, 1, IB_ASYNC_OBJ_PORT, 0, 1);
	publish(&fake.node, &e);
	publish(&fake.node, &ovf);
	e = rec(IBV_EVENT_QP_FATAL, (uintptr_t)&qp, IB_ASYNC_OBJ_QP, 7, 10);
	publish(&fake.node, &e);
	fake.waits = fake.batches = 0;
	OK(!get(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ERR &&
	   ev.element.port_num == 1 && fake.node.hdr->consumer == 1,
	   "a record from the ring, the consumer moved past it");
	OK(!get(ctx, &ev) && ev.event_type == IBV_EVENT_QP_FATAL &&
	   ev.element.qp == &qp && ibasync_lost_events(ctx) == 5 &&
	   fake.node.hdr->consumer == 3,
	   "an overflow record counted lost and passed over");
	ibv_ack_async_event(&ev);
	OK(fake.waits == 0 && fake.batches == 0,
	   "records in the ring: no system call");

	errno = 0;
	OK(get(ctx, &ev) == -1 && errno == EAGAIN && fake.waits == 1 &&
	   fake.wait.argsz == sizeof(fake.wait) &&
	   fake.wait.flags == IB_ASYNC_READ_NONBLOCK,
	   "empty: one RING_WAIT, non-blocking; O_NONBLOCK: EAGAIN");

	/* more than the ring holds waits in the "kernel queue" */
	for (i = 0; i < ENTRIES + 2; i++) {
		e = rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 20 + i);
		if (!publish(&fake.node, &e))
			memcpy(fake.node.pending[fake.node.npending++], &e,
			       sizeof(e));
	}
	for (i = 0; i < ENTRIES + 2; i++)
		ok = ok && !get(ctx, &ev) &&
		     ev.event_type == IBV_EVENT_SM_CHANGE;
	OK(ok && fake.node.npending == 0 && fake.batches == 0,
	   "a full ring and two queued behind it: all %u, in order",
	   ENTRIES + 2);

	/*
	 * A destroy skips the object's records still in the ring and
	 * waits only for the ack of the one handed out: a wait for all
	 * three the kernel reports would never end (alarm() in main()).
	 */
	if (!OK(cq, "a CQ"))
		return;
	e = rec(IBV_EVENT_CQ_ERR, (uintptr_t)cq, IB_ASYNC_OBJ_CQ, cq->handle,
		39);
	publish(&fake.node, &e);
	OK(!get(ctx, &ev) && ev.element.cq == cq, "the CQ's first record");
	ibv_ack_async_event(&ev);
	e = rec(IBV_EVENT_CQ_ERR, (uintptr_t)cq, IB_ASYNC_OBJ_CQ, cq->handle,
		40);
	publish(&fake.node, &e);
	e = rec(IBV_EVENT_QP_FATAL, (uintptr_t)&qp, IB_ASYNC_OBJ_QP,
		cq->handle, 41);
	publish(&fake.node, &e);
	e = rec(IBV_EVENT_PORT_ACTIVE, 1, IB_ASYNC_OBJ_PORT, 0, 42);
	publish(&fake.node, &e);
	e = rec(IBV_EVENT_CQ_ERR, (uintptr_t)cq, IB_ASYNC_OBJ_CQ, cq->handle,
		43);
	publish(&fake.node, &e);
	fake.reported = 3;
	OK(!ibv_destroy_cq(cq),
	   "ibv_destroy_cq: the 2 records in the ring not waited for");
	OK(!get(ctx, &ev) && ev.event_type == IBV_EVENT_QP_FATAL &&
	   !get(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ACTIVE,
	   "a QP's record of the same handle and a port record are kept");
	errno = 0;
	OK(get(ctx, &ev) == -1 && errno == EAGAIN &&
	   fake.node.hdr->consumer == fake.node.hdr->producer,
	   "the destroyed CQ's records are skipped, and consumed");

	fake.wait_err = ENODEV;
	errno = 0;
	OK(get(ctx, &ev) == -1 && errno == ENODEV,
	   "the stream's end: RING_WAIT's ENODEV returned");
	fake.wait_err = 0;
}

/*
 * A process of one thread takes records without the event lock
 * (ibasync_mt_lock()); a thread it makes afterwards takes them with it,
 * from where the first left off.
 */
struct taker {
	struct ibv_context *ctx;
	uint8_t ports[2];
	int got;
};

static void *take_two(void *arg)
{
	struct taker *t = arg;
	struct ibv_async_event ev;

	while (t->got < 2 && !get(t->ctx, &ev)) {
		t->ports[t->got++] = ev.element.port_num;
		ibv_ack_async_event(&ev);
	}
	return NULL;
}

static void test_then_threads(struct ibv_context *ctx)
{
	struct taker t = { .ctx = ctx };
	struct ibv_async_event ev;
	struct ib_async_event e;
	pthread_t tid;
	uint8_t i, first[2];
	bool single = __libc_single_threaded;

	for (i = 0; i < 4; i++) {
		e = rec(IBV_EVENT_PORT_ACTIVE, 1 + i, IB_ASYNC_OBJ_PORT, 0,
			50 + i);
		publish(&fake.node, &e);
	}
	for (i = 0; i < 2 && !get(ctx, &ev); i++) {
		first[i] = ev.element.port_num;
		ibv_ack_async_event(&ev);
	}
	OK(i == 2 && first[0] == 1 && first[1] == 2,
	   "one thread (%s): the first two records, in order",
	   single ? "no lock" : "already locked");
	OK(!pthread_create(&tid, NULL, take_two, &t) &&
	   !pthread_join(tid, NULL) && t.got == 2 && t.ports[0] == 3 &&
	   t.ports[1] == 4, "a new thread takes the next two, locked");
	errno = 0;
	OK(get(ctx, &ev) == -1 && errno == EAGAIN, "nothing left");
}

/*
 * Every event type, in the ring, comes out with libibverbs' element
 * (expect_element.h): the object for the types it names one for, the port
 * for the rest and for types newer than both; the ack counts on that
 * object and on nothing for a port.
 */
static const uint32_t element_types[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 31, 32, 33, 63, 64, 1000, IB_ASYNC_EV_OVERFLOW - 1,
};

static bool element_ok(struct ibv_context *ctx, struct expect_objects *o,
		       uint32_t type, uint64_t seq)
{
	uint32_t *acks = expected_acks(o, type), before = acks ? *acks : 0;
	uint32_t total = expect_acks_total(o);
	void *obj = expected_object(o, type);
	struct ibv_async_event ev;
	struct ib_async_event e;

	/* the kernel's element: the object's user_handle, or the port */
	e = rec(type, obj ? (uintptr_t)obj : 2, obj ? IB_ASYNC_OBJ_QP :
		IB_ASYNC_OBJ_PORT, obj ? 9 : 0, seq);
	if (!publish(&fake.node, &e) || get(ctx, &ev) ||
	    ev.event_type != (enum ibv_event_type)type ||
	    (obj ? ev.element.cq != obj : ev.element.port_num != 2))
		return false;
	ibv_ack_async_event(&ev);
	return (acks ? *acks == before + 1 : true) &&
	       expect_acks_total(o) == total + !!acks;
}

/* @how: whether the process has one thread (no locks) or several. */
static void test_elements(struct ibv_context *ctx, const char *how)
{
	struct expect_objects o;
	size_t i;
	bool ok = true;

	expect_objects_init(&o);
	for (i = 0; i < sizeof(element_types) / sizeof(element_types[0]); i++)
		if (!element_ok(ctx, &o, element_types[i], 60 + i)) {
			ok = false;
			OK(0, "%s: event type %u", how, element_types[i]);
		}
	OK(ok && fake.node.hdr->consumer == fake.node.hdr->producer,
	   "%s: every event type's element and ack as libibverbs'", how);
}

/* ---- a channel's ring --------------------------------------------------- */

static void test_channel_ring(struct ibv_context *ctx)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	struct ibasync_event ev[2 * ENTRIES];
	struct ib_async_chan_event k;
	int n, i;

	if (!OK(cq, "a CQ"))
		return;

	fake.maps = fake.waits = fake.batches = 0;
	OK(ch && !fake.maps, "create: no ring yet");
	errno = 0;
	n = ibasync_get_events(ch, ev, 4, IBASYNC_GET_NONBLOCK);
	OK(n == -1 && errno == EAGAIN && fake.maps == 1 &&
	   fake.map.entries == ENTRIES && fake.waits == 1 &&
	   fake.wait.flags == IB_ASYNC_READ_NONBLOCK && !fake.batches,
	   "first get_events: MAP_RING of the channel's queue length, then "
	   "RING_WAIT: EAGAIN");

	k = crec(rec(IBV_EVENT_PORT_ERR, 2, IB_ASYNC_OBJ_PORT, 0, 1));
	k.event.port_num = 2;
	k.event.timestamp_ns = 1111;
	k.last_timestamp_ns = 2222;
	k.occurrences = 3;
	publish(&fake.chan, &k);
	k = crec(rec(IBV_EVENT_CQ_ERR, (uintptr_t)cq, IB_ASYNC_OBJ_CQ,
		     cq->handle, 2));
	publish(&fake.chan, &k);
	k = crec(rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 3));
	publish(&fake.chan, &k);
	k = crec(rec(IBV_EVENT_LID_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 4));
	publish(&fake.chan, &k);
	fake.waits = 0;
	memset(ev, 0xa5, sizeof(ev));	/* every field must be written */
	n = ibasync_get_events(ch, ev, 2, 0);
	OK(n == 2 && ev[0].event_type == IBV_EVENT_PORT_ERR &&
	   ev[0].element.port_num == 2 && ev[0].cookie == 101 &&
	   ev[1].event_type == IBV_EVENT_CQ_ERR && ev[1].element.cq == cq &&
	   fake.chan.hdr->consumer == 2 && !fake.waits && !fake.batches,
	   "n 2 of 4 in the ring: two records, consumer 2, no system call");
	OK(ev[0].kind == IBASYNC_EVENT_ASYNC && ev[0].occurrences == 3 &&
	   !ev[0].lost && ev[0].seq == 1 && ev[0].timestamp_ns == 1111 &&
	   ev[0].last_timestamp_ns == 2222 && ev[0].port_num == 2 &&
	   ev[1].kind == IBASYNC_EVENT_ASYNC && ev[1].port_num == 1 &&
	   ev[1].seq == 2 && ev[1].cookie == 102,
	   "a ring record converted field by field");

	k = crec(rec(IBV_EVENT_CQ_ERR, (uintptr_t)cq, IB_ASYNC_OBJ_CQ,
		     cq->handle, 5));
	publish(&fake.chan, &k);
	fake.reported = 0;	/* channels' records count nowhere */
	OK(!ibv_destroy_cq(cq),
	   "destroy of a CQ with a record in the channel's ring");
	n = ibasync_get_events(ch, ev, 4, 0);
	OK(n == 2 && ev[0].event_type == IBV_EVENT_SM_CHANGE &&
	   ev[1].event_type == IBV_EVENT_LID_CHANGE &&
	   fake.chan.hdr->consumer == fake.chan.hdr->producer,
	   "the rest but the destroyed CQ's record, all consumed");

	k = crec(rec(IBV_EVENT_PORT_ACTIVE, 1, IB_ASYNC_OBJ_PORT, 0, 6));
	memcpy(fake.chan.pending[fake.chan.npending++], &k, sizeof(k));
	n = ibasync_get_events(ch, ev, 4, IBASYNC_GET_NONBLOCK);
	OK(n == 1 && ev[0].event_type == IBV_EVENT_PORT_ACTIVE,
	   "a record waiting in the kernel queue: moved by RING_WAIT");
	/*
	 * A full queue with its overflow record, the ring empty: the first
	 * RING_WAIT fills the ring, a second one moves the overflow record
	 * (each asked with available 0, as the kernel insists), and one
	 * call returns all of them, as one READ_BATCH did.
	 */
	for (i = 0; i < ENTRIES; i++) {
		k = crec(rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0,
			     10 + i));
		memcpy(fake.chan.pending[fake.chan.npending++], &k, sizeof(k));
	}
	k = (struct ib_async_chan_event){ .event = {
		.seq = 10 + ENTRIES, .count = 3,
		.event_type = IB_ASYNC_EV_OVERFLOW } };
	memcpy(fake.chan.pending[fake.chan.npending++], &k, sizeof(k));
	n = ibasync_get_events(ch, ev, 2 * ENTRIES, IBASYNC_GET_NONBLOCK);
	OK(n == ENTRIES + 1 && ev[ENTRIES].kind == IBASYNC_EVENT_OVERFLOW &&
	   ev[ENTRIES].lost == 3,
	   "a full queue and its overflow record, ring empty: all %d in "
	   "one call", ENTRIES + 1);
	fake.wait_err = EIO;
	errno = 0;
	OK(ibasync_get_events(ch, ev, 4, 0) == -1 && errno == EIO,
	   "the stream's end: RING_WAIT's EIO returned");
	fake.wait_err = 0;
	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);

	ch = ibasync_create_channel(ctx, IBASYNC_CHANNEL_COALESCE |
				    IBASYNC_CHANNEL_NONBLOCK);
	fake.maps = fake.batches = 0;
	errno = 0;
	OK(ch && ibasync_get_events(ch, ev, 4, 0) == -1 && errno == EAGAIN &&
	   !fake.maps && fake.batches == 1,
	   "a coalescing channel: no MAP_RING, READ_BATCH");
	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);
}

/* Mark the record in @slot of @r skipped, as a destroy marks its object's. */
static void mark_skipped(struct fake_ring *r, uint32_t slot)
{
	struct ib_async_event *e = (void *)((unsigned char *)r->hdr + REC_OFF +
					    (slot & (ENTRIES - 1)) *
					    r->rec_size);

	e->event_type = IBASYNC_RING_SKIP;
}

/*
 * Records that wrap the ring's end, with skipped ones and an overflow
 * record among them: a call fills the array across the wrap and past the
 * skipped records, in order, and moves the consumer past the last record
 * it read, no further.
 */
static void test_channel_wrap(struct ibv_context *ctx)
{
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	struct ibasync_event ev[ENTRIES];
	struct ib_async_chan_event k;
	uint32_t i;
	int n;

	errno = 0;
	if (!OK(ch && ibasync_get_events(ch, ev, 2, IBASYNC_GET_NONBLOCK) ==
		-1 && errno == EAGAIN && fake.chan.hdr, "a channel's ring"))
		return;
	for (i = 1; i <= ENTRIES - 2; i++) {
		k = crec(rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, i));
		publish(&fake.chan, &k);
	}
	OK(ibasync_get_events(ch, ev, ENTRIES, 0) == ENTRIES - 2 &&
	   fake.chan.hdr->consumer == ENTRIES - 2,
	   "six records taken: the consumer two slots from the ring's end");
	/* seq 7..12 in slots 6, 7, 0, 1, 2, 3; 8 and 10 skipped, 9 lost 5 */
	for (i = ENTRIES - 1; i <= ENTRIES + 4; i++) {
		k = crec(rec(IBV_EVENT_PORT_ERR, i, IB_ASYNC_OBJ_PORT, 0, i));
		k.event.port_num = i;
		if (i == ENTRIES + 1)
			k = (struct ib_async_chan_event){ .event = {
				.seq = i, .count = 5,
				.event_type = IB_ASYNC_EV_OVERFLOW } };
		publish(&fake.chan, &k);
	}
	mark_skipped(&fake.chan, ENTRIES - 1);	/* seq 8 */
	mark_skipped(&fake.chan, ENTRIES + 1);	/* seq 10 */
	n = ibasync_get_events(ch, ev, 3, 0);
	OK(n == 3 && ev[0].kind == IBASYNC_EVENT_ASYNC && ev[0].seq == 7 &&
	   ev[0].element.port_num == 7 && ev[0].port_num == 7 &&
	   ev[0].cookie == 107 && ev[0].occurrences == 1 && !ev[0].lost &&
	   ev[1].kind == IBASYNC_EVENT_OVERFLOW && ev[1].seq == 9 &&
	   ev[1].lost == 5 && ev[2].seq == 11 &&
	   ev[2].event_type == IBV_EVENT_PORT_ERR &&
	   ev[2].element.port_num == 11 &&
	   fake.chan.hdr->consumer == ENTRIES + 3,
	   "three across the ring's end and two skipped records: seq 7, the "
	   "overflow 9 and 11, consumer past 11 (got %d, consumer %u)", n,
	   fake.chan.hdr->consumer);
	n = ibasync_get_events(ch, ev, 2, 0);
	OK(n == 1 && ev[0].seq == 12 && ev[0].element.port_num == 12 &&
	   fake.chan.hdr->consumer == fake.chan.hdr->producer,
	   "two asked, one left: seq 12, all consumed");
	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);
}

/* A channel that outlives its context keeps working on its ring. */
static void test_channel_outlives(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibasync_channel *ch = ctx ? ibasync_create_channel(ctx, 0) : NULL;
	struct ib_async_chan_event k;
	struct ibasync_event ev[2];

	if (!OK(ch, "a second context and a channel"))
		return;
	errno = 0;
	ibasync_get_events(ch, ev, 2, IBASYNC_GET_NONBLOCK);
	fake_unmap(&fake.node);
	ibv_close_device(ctx);
	k = crec(rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 1));
	publish(&fake.chan, &k);
	OK(ibasync_get_events(ch, ev, 2, 0) == 1 &&
	   ev[0].event_type == IBV_EVENT_SM_CHANGE,
	   "after ibv_close_device: the channel's ring still read");
	OK(ibasync_destroy_channel(ch) == 0, "then destroyed");
	fake_unmap(&fake.chan);
}

/* ---- fork() ------------------------------------------------------------- */

/* What the child of test_fork() checks: bits of its exit status. */
enum {
	CHILD_NODE_REC = 1,	/* the node's record, from a new mapping */
	CHILD_NEW_MAP = 2,	/* mapped in the child's generation */
	CHILD_CHAN_REC = 4,	/* the channel's record */
	CHILD_ALL = 7,
};

static int fork_child(struct ibv_context *ctx, struct ibasync_channel *ch,
		      uint32_t parent_gen)
{
	struct ibasync_context *c = to_ibasync_ctx(ctx);
	struct ibasync_event cev[2];
	struct ibv_async_event ev;
	int bits = 0;

	if (!get(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ERR) {
		bits |= CHILD_NODE_REC;
		ibv_ack_async_event(&ev);
	}
	if (c->ev_ring.hdr && c->ev_ring.gen == parent_gen + 1)
		bits |= CHILD_NEW_MAP;
	if (ibasync_get_events(ch, cev, 2, IBASYNC_GET_NONBLOCK) == 1 &&
	    cev[0].event_type == IBV_EVENT_SM_CHANGE)
		bits |= CHILD_CHAN_REC;
	return bits;
}

/* A child whose new mapping fails: errors, the same each time. */
static int fork_child_unmappable(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int p[2], e1, e2;

	/* the node's number now names a pipe's read end: no shared writes */
	if (pipe(p) || dup2(p[0], ctx->async_fd) < 0)
		return 0;
	errno = 0;
	if (get(ctx, &ev) != -1)
		return 0;
	e1 = errno;
	errno = 0;
	if (get(ctx, &ev) != -1)
		return 0;
	e2 = errno;
	/* PROT_WRITE of a descriptor open read-only */
	return e1 == EACCES && e2 == EACCES ? CHILD_ALL : 0;
}

static int wait_child(pid_t pid)
{
	int st;

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * A child of fork() that uses its parent's context and channel: the
 * kernel leaves rings out of the child (VM_DONTCOPY, played here by
 * MADV_DONTFORK on the library's own mappings), so the library maps them
 * again; parent and child then share each ring as they share the
 * descriptor.
 */
static void test_fork(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibasync_channel *ch = ctx ? ibasync_create_channel(ctx, 0) : NULL;
	struct ibasync_context *c = ctx ? to_ibasync_ctx(ctx) : NULL;
	struct ib_async_chan_event k;
	struct ibv_async_event ev;
	struct ibasync_event cev[2];
	struct ib_async_event e;
	int bits;

	if (!OK(ch && c->ev_ring.hdr, "a context with a ring, a channel"))
		return;
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	ibasync_get_events(ch, cev, 2, IBASYNC_GET_NONBLOCK);	/* maps it */
	e = rec(IBV_EVENT_PORT_ERR, 1, IB_ASYNC_OBJ_PORT, 0, 1);
	publish(&fake.node, &e);
	e = rec(IBV_EVENT_PORT_ACTIVE, 1, IB_ASYNC_OBJ_PORT, 0, 2);
	publish(&fake.node, &e);
	k = crec(rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 3));
	publish(&fake.chan, &k);
	if (!OK(!madvise(c->ev_ring.hdr, c->ev_ring.map_size, MADV_DONTFORK) &&
		!madvise(ch->ring.hdr,
			 ch->ring.map_size, MADV_DONTFORK),
		"the rings left out of children"))
		return;

	fflush(NULL);
	pid_t pid = fork();

	if (!pid)
		_exit(fork_child(ctx, ch, c->ev_ring.gen));
	bits = wait_child(pid);
	OK(bits >= 0 && bits & CHILD_NODE_REC,
	   "child: the context's record, through its own mapping");
	OK(bits >= 0 && bits & CHILD_NEW_MAP,
	   "child: the ring mapped again, in the child's generation");
	OK(bits >= 0 && bits & CHILD_CHAN_REC, "child: the channel's record");
	OK(!get(ctx, &ev) && ev.event_type == IBV_EVENT_PORT_ACTIVE &&
	   fake.node.hdr->consumer == 2,
	   "parent: the next record; the child's consumer count is shared");
	ibv_ack_async_event(&ev);

	fflush(NULL);
	pid = fork();
	if (!pid)
		_exit(fork_child_unmappable(ctx));
	OK(wait_child(pid) == CHILD_ALL,
	   "child that cannot map the ring: EACCES, and again EACCES");

	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);
	ibv_close_device(ctx);
	fake_unmap(&fake.node);
}

/*
 * Parent and child taking from one ring at the same time, the parent also
 * playing the kernel: each record must reach exactly one of them, as
 * read() of a shared ib_uverbs descriptor hands each event to one reader.
 * A record's element (a port event's port number) is its id; both count
 * what they take in memory they share. Each stops when all were taken or
 * after a few seconds (a record taken twice or lost never adds up). Some
 * rounds, the context's ring and a channel's: without a claim both may
 * copy the same slot, and one round alone may pass by luck.
 */
#define SHARED_RECS	100000
#define SHARED_ROUNDS	4

struct shared_count {
	unsigned int total;
	unsigned int seen[SHARED_RECS + 1];
};

/* One record from @ch, or else the context's ring: its id, or 0. */
static int take_one(struct ibv_context *ctx, struct ibasync_channel *ch)
{
	struct ibv_async_event ev;
	struct ibasync_event cev;

	if (ch)
		return ibasync_get_events(ch, &cev, 1, IBASYNC_GET_NONBLOCK) == 1 ?
		       cev.element.port_num : 0;
	return get(ctx, &ev) ? 0 : ev.element.port_num;
}

static void take_shared(struct ibv_context *ctx, struct ibasync_channel *ch,
			struct shared_count *sc, bool produce)
{
	struct fake_ring *r = ch ? &fake.chan : &fake.node;
	time_t deadline = time(NULL) + 10;
	struct ib_async_chan_event k;
	uint32_t next = 1;
	int id;

	while (__atomic_load_n(&sc->total, __ATOMIC_ACQUIRE) < SHARED_RECS &&
	       time(NULL) < deadline) {
		for (; produce && next <= SHARED_RECS; next++) {
			k = crec(rec(IBV_EVENT_PORT_ERR, next,
				     IB_ASYNC_OBJ_PORT, 0, next));
			if (!publish(r, ch ? (void *)&k : (void *)&k.event))
				break;
		}
		id = take_one(ctx, ch);
		if (!id)
			continue;	/* empty for now */
		if (id <= SHARED_RECS)
			__atomic_add_fetch(&sc->seen[id], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&sc->total, 1, __ATOMIC_RELEASE);
	}
}

/* Rounds in which every record went to exactly one of the two. */
static int shared_rounds(struct ibv_context *ctx, struct ibasync_channel *ch,
			 struct shared_count *sc)
{
	unsigned int i, once;
	int round, st, exact = 0;
	pid_t pid;

	for (round = 0; round < SHARED_ROUNDS; round++) {
		memset(sc, 0, sizeof(*sc));
		fflush(NULL);
		pid = fork();
		if (!pid) {
			take_shared(ctx, ch, sc, false);
			_exit(0);
		}
		take_shared(ctx, ch, sc, true);
		st = wait_child(pid);
		for (i = 1, once = 0; i <= SHARED_RECS; i++)
			once += sc->seen[i] == 1;
		if (!st && once == SHARED_RECS && sc->total == SHARED_RECS)
			exact++;
		else
			printf("# %s round %d: child %d, %u of %u taken once, "
			       "%u taken in all\n", ch ? "channel" : "context",
			       round, st, once, SHARED_RECS, sc->total);
	}
	return exact;
}

static void test_fork_shared(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibasync_channel *ch = ctx ? ibasync_create_channel(ctx, 0) : NULL;
	struct ibasync_context *c = ctx ? to_ibasync_ctx(ctx) : NULL;
	struct ibasync_event cev;
	struct shared_count *sc;

	sc = mmap(NULL, sizeof(*sc), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!OK(ch && c->ev_ring.hdr && sc != MAP_FAILED,
		"a context with a ring, a channel; shared counters"))
		return;
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	ibasync_get_events(ch, &cev, 1, IBASYNC_GET_NONBLOCK);	/* maps it */
	OK(!madvise(c->ev_ring.hdr, c->ev_ring.map_size, MADV_DONTFORK) &&
	   !madvise(ch->ring.hdr, ch->ring.map_size, MADV_DONTFORK),
	   "the rings left out of children");

	OK(shared_rounds(ctx, NULL, sc) == SHARED_ROUNDS,
	   "context's ring, parent and child at once: every record taken "
	   "exactly once, in each of %d rounds", SHARED_ROUNDS);
	OK(shared_rounds(ctx, ch, sc) == SHARED_ROUNDS,
	   "channel's ring, parent and child at once: every record taken "
	   "exactly once, in each of %d rounds", SHARED_ROUNDS);

	munmap(sc, sizeof(*sc));
	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);
	ibv_close_device(ctx);
	fake_unmap(&fake.node);
}

/* ---- no ring ------------------------------------------------------------ */

static void test_no_ring(struct ibv_device *dev)
{
	struct ibv_context *ctx;
	struct ibasync_channel *ch;
	struct ibasync_event ev[2];

	fake.maps = fake.batches = 0;
	setenv(IBASYNC_NO_RING_ENV, "1", 1);
	ctx = ibv_open_device(dev);
	ch = ctx ? ibasync_create_channel(ctx, IBASYNC_CHANNEL_NONBLOCK) : NULL;
	errno = 0;
	OK(ch && !to_ibasync_ctx(ctx)->ev_ring.hdr && !fake.maps &&
	   ibasync_get_events(ch, ev, 2, 0) == -1 && errno == EAGAIN &&
	   !fake.maps && fake.batches == 1,
	   "IBASYNC_NO_RING=1: no MAP_RING, READ_BATCH on the channel");
	if (ch)
		ibasync_destroy_channel(ch);
	if (ctx)
		ibv_close_device(ctx);
	fake_unmap(&fake.chan);
	setenv(IBASYNC_NO_RING_ENV, "", 1);
	fake.maps = 0;
	ctx = ibv_open_device(dev);
	OK(ctx && to_ibasync_ctx(ctx)->ev_ring.hdr && fake.maps == 1,
	   "IBASYNC_NO_RING empty: a ring");
	if (ctx)
		ibv_close_device(ctx);
	fake_unmap(&fake.node);
	unsetenv(IBASYNC_NO_RING_ENV);

	/* a header that does not fit its mapping: opened anew, no ring */
	fake.bad_header = true;
	fake.maps = 0;
	ctx = ibv_open_device(dev);
	OK(ctx && !to_ibasync_ctx(ctx)->ev_ring.hdr && fake.maps == 1,
	   "a ring that cannot be used: the node reopened, READ_BATCH");
	fake.bad_header = false;
	if (ctx)
		ibv_close_device(ctx);
	fake_unmap(&fake.node);
}

/*
 * IBASYNC_1.3: ibasync_open_device()'s flag, and the records of the
 * context's and a channel's rings as the kernel wrote them.
 */
static void test_open_flags(struct ibv_device *dev)
{
	struct ibasync_channel *ch;
	struct ibv_context *ctx;

	fake.maps = 0;
	ctx = ibasync_open_device(dev, IBASYNC_OPEN_NO_RING);
	ch = ctx ? ibasync_create_channel(ctx, IBASYNC_CHANNEL_NONBLOCK) : NULL;
	OK(ch && !to_ibasync_ctx(ctx)->ev_ring.hdr && !ch->ring_ok &&
	   !fake.maps,
	   "IBASYNC_OPEN_NO_RING: no MAP_RING for the context or its channels");
	if (ch)
		ibasync_destroy_channel(ch);
	if (ctx)
		ibv_close_device(ctx);
	fake_unmap(&fake.chan);
	errno = 0;
	OK(!ibasync_open_device(dev, 1U << 1) && errno == EINVAL,
	   "ibasync_open_device: an unknown flag, EINVAL");
	errno = 0;
	OK(!ibasync_open_device(NULL, 0) && errno == EINVAL,
	   "ibasync_open_device(NULL): EINVAL");
}

static void test_raw_chan(struct ibv_context *ctx)
{
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	struct ib_async_chan_event k, out[4];
	struct ibasync_event ev;
	int n;

	if (!OK(ch, "a channel"))
		return;
	fake.qlen_fd = -1;
	OK(!ibasync_channel_set_queue_len(ch, 16) &&
	   fake.qlen_fd == ibasync_channel_fd(ch) && fake.qlen == 16,
	   "channel_set_queue_len: SET_QUEUE_LEN on the channel's file");
	OK(ibasync_channel_set_queue_len(ch, 0) == EINVAL && errno == EINVAL &&
	   ibasync_channel_set_queue_len(NULL, 8) == EINVAL,
	   "channel_set_queue_len: 0 or no channel, EINVAL");
	/* get_events maps the ring; the raw read then takes from it */
	ibasync_get_events(ch, &ev, 1, IBASYNC_GET_NONBLOCK);
	k = crec(rec(IBV_EVENT_PORT_ACTIVE, 2, IB_ASYNC_OBJ_PORT, 0, 3));
	publish(&fake.chan, &k);
	k = crec(rec(IBV_EVENT_LID_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 4));
	k.occurrences = 6;
	publish(&fake.chan, &k);
	errno = 0;
	OK(ibasync_channel_read_records(ch, out, sizeof(struct ib_async_event),
					4, 0) == -1 && errno == EINVAL,
	   "channel_read_records: a record size not the channel's, EINVAL");
	fake.waits = 0;
	n = ibasync_channel_read_records(ch, out, sizeof(out[0]), 4,
					 IBASYNC_READ_NONBLOCK);
	OK(n == 2 && out[0].cookie == 103 && out[0].event.seq == 3 &&
	   out[1].event.seq == 4 && out[1].occurrences == 6 &&
	   fake.chan.hdr && fake.chan.hdr->consumer == 2 && !fake.waits,
	   "channel_read_records: the mapped ring's records, as written");
	errno = 0;
	OK(ibasync_channel_read_records(ch, out, sizeof(out[0]), 4,
					IBASYNC_READ_NONBLOCK) == -1 &&
	   errno == EAGAIN && fake.waits == 1,
	   "channel_read_records: an empty ring, one RING_WAIT, EAGAIN");
	ibasync_destroy_channel(ch);
	fake_unmap(&fake.chan);
}

static void test_raw_records(struct ibv_device *dev)
{
	struct ib_async_event e, out[4];
	struct ibv_context *ctx;
	int n;

	fake.maps = 0;
	ctx = ibasync_open_device(dev, 0);
	if (!OK(ctx && to_ibasync_ctx(ctx)->ev_ring.hdr && fake.maps == 1,
		"ibasync_open_device(0): a ring, as ibv_open_device()"))
		return;
	e = rec(IBV_EVENT_PORT_ERR, 1, IB_ASYNC_OBJ_PORT, 0, 1);
	e.timestamp_ns = 777;
	publish(&fake.node, &e);
	e = (struct ib_async_event){ .seq = 2, .count = 5,
				     .event_type = IB_ASYNC_EV_OVERFLOW };
	publish(&fake.node, &e);
	e = rec(IBV_EVENT_SM_CHANGE, 1, IB_ASYNC_OBJ_PORT, 0, 7);
	publish(&fake.node, &e);
	fake.waits = fake.batches = 0;
	errno = 0;
	OK(ibasync_read_records(ctx, out, 0, 0) == -1 && errno == EINVAL &&
	   ibasync_read_records(ctx, out, 4, 1U << 1) == -1 &&
	   ibasync_read_records(NULL, out, 4, 0) == -1,
	   "read_records: n 0, an unknown flag, no context: EINVAL");
	n = ibasync_read_records(ctx, out, 4, IBASYNC_READ_NONBLOCK);
	OK(n == 3 && out[0].seq == 1 && out[0].timestamp_ns == 777 &&
	   out[1].event_type == IB_ASYNC_EV_OVERFLOW && out[1].count == 5 &&
	   out[2].seq == 7 && fake.node.hdr->consumer == 3 &&
	   !fake.waits && !fake.batches,
	   "read_records: the ring's records as written, overflow too, "
	   "no system call");
	errno = 0;
	OK(ibasync_read_records(ctx, out, 4, IBASYNC_READ_NONBLOCK) == -1 &&
	   errno == EAGAIN && fake.waits == 1,
	   "read_records: an empty ring, one RING_WAIT, EAGAIN");
	OK(ibasync_lost_events(ctx) == 0,
	   "an overflow record read raw is the caller's: not counted lost");
	test_raw_chan(ctx);
	ibv_close_device(ctx);
	fake_unmap(&fake.node);
}


int main(void)
{
	struct ibv_context *ctx;
	struct ft_fake0 ft;

	fake.node.rec_size = sizeof(struct ib_async_event);
	fake.chan.rec_size = sizeof(struct ib_async_chan_event);
	fake.chan.fd = -1;
	alarm(60);	/* a destroy waiting for acks that never come */
	if (ft_fake0_setup(&ft) ||
	    (fake.node.fd = ft_fake0_node_as_file(&ft)) < 0)
		return OK(0, "fake tree"), tap_done();
	fake.on = true;
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx, "open fake0"))
		return tap_done();
	test_node_ring(ctx);
	test_elements(ctx, __libc_single_threaded ? "one thread" :
			   "one thread, already locked");
	test_then_threads(ctx);
	test_elements(ctx, "after a thread, locked");
	test_channel_ring(ctx);
	test_channel_wrap(ctx);
	ibv_close_device(ctx);
	fake_unmap(&fake.node);
	test_channel_outlives(ft.dev);
	test_fork(ft.dev);
	test_fork_shared(ft.dev);
	test_no_ring(ft.dev);
	test_open_flags(ft.dev);
	test_raw_records(ft.dev);
	fake.on = false;
	close(fake.node.fd);
	ft_fake0_teardown(&ft);
	return tap_done();
}
