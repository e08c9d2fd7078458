// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event channels (<infiniband/ib_async.h>) against a fake kernel: what
 * each call refuses before asking the kernel, what it asks, and how the
 * records the kernel writes are handed out.
 *
 * As in test_ex.c, the node is a FIFO of the fake tree and this program
 * defines ioctl() itself: while `fake.on` it answers GET_INFO (with the
 * features of fake.features), CREATE_CHANNEL (an eventfd stands for the
 * channel's file), SUBSCRIBE, UNSUBSCRIBE and READ_BATCH on the channel
 * (from fake.recs) as the kernel would, recording what was asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/ib_async.h>
#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "ibasync.h"
#include "tap.h"

#define FAKE_RECS	8
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FAKE_BAD_HANDLE	99

static struct {
	bool on;
	uint64_t features;
	/* the last request of each kind, and how many there were */
	struct ib_async_create_channel create;
	struct ib_async_subscribe sub;
	struct ib_async_unsubscribe unsub;
	struct ib_async_read_batch batch;
	int creates, subs, unsubs, batches;
	int chan_fd;
	uint32_t next_sub_id;
	/* the channel's queue: recs[rec_next..nrecs) */
	struct ib_async_chan_event recs[FAKE_RECS];
	unsigned int rec_next, nrecs;
	int read_err;		/* READ_BATCH fails with it when set */
} fake;

static int fail(int err)
{
	errno = err;
	return -1;
}

static int fake_read_batch(int fd, struct ib_async_read_batch *b)
{
	struct ib_async_chan_event *out;
	uint32_t n = 0;

	fake.batches++;
	fake.batch = *b;
	if (fd != fake.chan_fd)
		return fail(EINVAL);
	if (fake.read_err)
		return fail(fake.read_err);
	if (fake.rec_next == fake.nrecs)
		return fail(EAGAIN);	/* as NONBLOCK; nothing blocks here */
	out = (struct ib_async_chan_event *)(uintptr_t)b->buf;
	while (n < b->count && fake.rec_next < fake.nrecs)
		memcpy(&out[n++], &fake.recs[fake.rec_next++], sizeof(*out));
	b->count = n;
	return 0;
}

static int fake_answer(int fd, unsigned long req, void *arg)
{
	struct ib_async_create_channel *cc = arg;
	struct ib_async_subscribe *s = arg;
	struct ib_async_unsubscribe *u = arg;

	switch (req) {
	case IB_ASYNC_IOC_GET_INFO:
		fake_info(arg, fake.features);
		return 0;
	case IB_ASYNC_IOC_CREATE_CHANNEL:
		fake.creates++;
		fake.create = *cc;
		fake.chan_fd = eventfd(0, EFD_CLOEXEC);
		cc->fd = fake.chan_fd;
		return cc->fd < 0 ? -1 : 0;
	case IB_ASYNC_IOC_SUBSCRIBE:
		fake.subs++;
		fake.sub = *s;
		if (s->flags & IB_ASYNC_SUB_OBJECT &&
		    s->obj_handle == FAKE_BAD_HANDLE)
			return fail(ENOENT);
		s->sub_id = ++fake.next_sub_id;
		return 0;
	case IB_ASYNC_IOC_UNSUBSCRIBE:
		fake.unsubs++;
		fake.unsub = *u;
		return u->sub_id > fake.next_sub_id ? fail(ENOENT) : 0;
	case IB_ASYNC_IOC_READ_BATCH:
		return fake_read_batch(fd, arg);
	}
	return FAKE_IOCTL_PASS;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	return fake.on ? fake_answer(fd, req, arg) : FAKE_IOCTL_PASS;
}


/* ---- channels ------------------------------------------------------------ */

static void test_create(struct ibv_context *ctx, struct ibv_context *old)
{
	struct ibasync_channel *ch;

	fake.creates = 0;
	errno = 0;
	OK(!ibasync_create_channel(old, 0) && errno == EOPNOTSUPP &&
	   !fake.creates,
	   "a kernel without IB_ASYNC_FEATURE_EVENT_CHANNEL: EOPNOTSUPP");
	errno = 0;
	OK(!ibasync_create_channel(NULL, 0) && errno == EINVAL,
	   "create_channel(NULL): EINVAL");
	errno = 0;
	OK(!ibasync_create_channel(ctx, 1U << 4) && errno == EINVAL &&
	   !fake.creates, "an unknown flag: EINVAL, not asked");
	ch = ibasync_create_channel(ctx, IBASYNC_CHANNEL_NONBLOCK |
				    IBASYNC_CHANNEL_COALESCE);
	OK(ch && fake.creates == 1 && fake.create.argsz == sizeof(fake.create) &&
	   fake.create.type == IB_ASYNC_CHANNEL_EVENT &&
	   fake.create.flags == (IB_ASYNC_CHANNEL_NONBLOCK |
				 IB_ASYNC_CHANNEL_COALESCE),
	   "NONBLOCK | COALESCE: one CREATE_CHANNEL of an event channel, "
	   "flags passed on");
	OK(ch && ibasync_channel_fd(ch) == fake.chan_fd,
	   "ibasync_channel_fd: the kernel's descriptor");
	errno = 0;
	OK(ibasync_channel_fd(NULL) == -1 && errno == EINVAL,
	   "ibasync_channel_fd(NULL): -1, EINVAL");
	OK(ibasync_destroy_channel(ch) == 0 && fcntl(fake.chan_fd, F_GETFD) < 0,
	   "destroy: 0, the descriptor closed");
	errno = 0;
	OK(ibasync_destroy_channel(NULL) == EINVAL && errno == EINVAL,
	   "destroy(NULL): EINVAL");
	ch = ibasync_create_channel(ctx, 0);
	OK(ch && fake.create.flags == 0, "no flags: none asked");
	ibasync_destroy_channel(ch);
}

/* ---- subscriptions ------------------------------------------------------- */

/* Objects of a context, as the library fills them in. */
struct objs {
	struct ibv_cq cq;
	struct ibv_qp qp;
	struct ibv_srq srq;
	struct ibv_wq wq;
};

static void objs_init(struct objs *o, struct ibv_context *ctx)
{
	memset(o, 0, sizeof(*o));
	o->cq.context = ctx;
	o->qp.context = ctx;
	o->srq.context = ctx;
	o->wq.context = ctx;
	o->cq.handle = 11;
	o->qp.handle = 12;
	o->srq.handle = 13;
	o->wq.handle = 14;
}

static void test_subscribe_refusals(struct ibv_context *ctx,
				    struct ibv_context *other)
{
	const uint64_t all = IBASYNC_EVENT_TYPE_BIT(IBASYNC_EVENT_TYPE_MAX + 1) - 1;
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	struct ibasync_subscription s;
	struct objs mine, theirs;
	uint32_t id = 0;

	objs_init(&mine, ctx);
	objs_init(&theirs, other);
	fake.subs = 0;
#define REFUSED(what, ...) do {						\
	s = (struct ibasync_subscription){ __VA_ARGS__ };		\
	errno = 0;							\
	OK(ibasync_subscribe(ch, &s, &id) == EINVAL && errno == EINVAL, \
	   "subscribe refused: %s", what);				\
} while (0)
	REFUSED("unknown flag", .flags = 1U << 3);
	REFUSED("TYPES with no type", .flags = IBASYNC_SUB_TYPES);
	REFUSED("TYPES beyond IBASYNC_EVENT_TYPE_MAX",
		.flags = IBASYNC_SUB_TYPES,
		.types = IBASYNC_EVENT_TYPE_BIT(IBASYNC_EVENT_TYPE_MAX + 1));
	REFUSED("types without TYPES", .types = 1);
	REFUSED("a port without PORT", .port_num = 1);
	REFUSED("an object without OBJECT", .object_type = IBASYNC_OBJECT_QP,
		.object.qp = &mine.qp);
	REFUSED("a pointer without OBJECT", .object.cq = &mine.cq);
	REFUSED("OBJECT of no kind", .flags = IBASYNC_SUB_OBJECT,
		.object.qp = &mine.qp);
	REFUSED("OBJECT of an unknown kind", .flags = IBASYNC_SUB_OBJECT,
		.object_type = (enum ibasync_object_type)7,
		.object.qp = &mine.qp);
	REFUSED("OBJECT, QP NULL", .flags = IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_QP);
	REFUSED("a CQ of another context", .flags = IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_CQ, .object.cq = &theirs.cq);
	REFUSED("a QP of another context", .flags = IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_QP, .object.qp = &theirs.qp);
	REFUSED("an SRQ of another context", .flags = IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_SRQ, .object.srq = &theirs.srq);
	REFUSED("a WQ of another context", .flags = IBASYNC_SUB_OBJECT,
		.object_type = IBASYNC_OBJECT_WQ, .object.wq = &theirs.wq);
#undef REFUSED
	s = (struct ibasync_subscription){ .flags = IBASYNC_SUB_TYPES,
					   .types = all };
	OK(ibasync_subscribe(NULL, &s, &id) == EINVAL &&
	   ibasync_subscribe(ch, NULL, &id) == EINVAL,
	   "subscribe: NULL channel or subscription: EINVAL");
	OK(fake.subs == 0 && id == 0, "nothing refused reached the kernel");
	ibasync_destroy_channel(ch);
}

static void test_subscribe(struct ibv_context *ctx)
{
	const uint64_t port_types = IBASYNC_EVENT_TYPE_BIT(IBV_EVENT_PORT_ERR) |
				    IBASYNC_EVENT_TYPE_BIT(IBV_EVENT_PORT_ACTIVE);
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	static const struct {
		enum ibasync_object_type type;
		uint32_t handle;
	} kinds[] = {
		{ IBASYNC_OBJECT_CQ, 11 }, { IBASYNC_OBJECT_QP, 12 },
		{ IBASYNC_OBJECT_SRQ, 13 }, { IBASYNC_OBJECT_WQ, 14 },
	};
	struct ibasync_subscription s = {
		.flags = IBASYNC_SUB_TYPES | IBASYNC_SUB_PORT,
		.types = port_types, .port_num = 2, .cookie = 0xc00c1e,
	};
	struct objs o;
	uint32_t id = 0, first;

	objs_init(&o, ctx);
	fake.subs = 0;
	OK(ibasync_subscribe(ch, &s, &id) == 0 && fake.subs == 1 &&
	   id == fake.next_sub_id, "types and port: 0, the kernel's id");
	OK(fake.sub.argsz == sizeof(fake.sub) &&
	   fake.sub.flags == (IB_ASYNC_SUB_TYPES | IB_ASYNC_SUB_PORT) &&
	   fake.sub.fd == ibasync_channel_fd(ch) &&
	   fake.sub.type_mask == port_types && fake.sub.port == 2 &&
	   fake.sub.cookie == 0xc00c1e && fake.sub.obj_handle == 0,
	   "asked: the channel's fd, flags, mask, port and cookie");
	first = id;
	s = (struct ibasync_subscription){ .flags = IBASYNC_SUB_PORT };
	OK(ibasync_subscribe(ch, &s, NULL) == 0 && fake.sub.port == 0 &&
	   fake.sub.flags == IB_ASYNC_SUB_PORT,
	   "port 0 (the device), no id wanted");
	s = (struct ibasync_subscription){ .cookie = 5 };
	OK(ibasync_subscribe(ch, &s, &id) == 0 && fake.sub.flags == 0 &&
	   fake.sub.cookie == 5, "no flag: every event");
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		s = (struct ibasync_subscription){
			.flags = IBASYNC_SUB_OBJECT | IBASYNC_SUB_TYPES,
			.types = 1, .object_type = kinds[i].type,
		};
		switch (kinds[i].type) {
		case IBASYNC_OBJECT_CQ:
			s.object.cq = &o.cq;
			break;
		case IBASYNC_OBJECT_QP:
			s.object.qp = &o.qp;
			break;
		case IBASYNC_OBJECT_SRQ:
			s.object.srq = &o.srq;
			break;
		default:
			s.object.wq = &o.wq;
			break;
		}
		OK(ibasync_subscribe(ch, &s, &id) == 0 &&
		   fake.sub.flags == (IB_ASYNC_SUB_OBJECT | IB_ASYNC_SUB_TYPES) &&
		   fake.sub.obj_handle == kinds[i].handle,
		   "object kind %d: its handle %u asked", kinds[i].type,
		   kinds[i].handle);
	}
	o.qp.handle = FAKE_BAD_HANDLE;
	s = (struct ibasync_subscription){ .flags = IBASYNC_SUB_OBJECT,
					   .object_type = IBASYNC_OBJECT_QP,
					   .object.qp = &o.qp };
	errno = 0;
	OK(ibasync_subscribe(ch, &s, &id) == ENOENT && errno == ENOENT,
	   "the kernel's error returned and in errno (ENOENT)");

	fake.unsubs = 0;
	OK(ibasync_unsubscribe(ch, 0) == EINVAL &&
	   ibasync_unsubscribe(NULL, first) == EINVAL && fake.unsubs == 0,
	   "unsubscribe id 0 or NULL channel: EINVAL, not asked");
	OK(ibasync_unsubscribe(ch, first) == 0 && fake.unsubs == 1 &&
	   fake.unsub.argsz == sizeof(fake.unsub) && fake.unsub.flags == 0 &&
	   fake.unsub.fd == ibasync_channel_fd(ch) &&
	   fake.unsub.sub_id == first, "unsubscribe: the channel's fd and id");
	errno = 0;
	OK(ibasync_unsubscribe(ch, 1000) == ENOENT && errno == ENOENT,
	   "unsubscribe of an id the kernel does not hold: ENOENT");
	ibasync_destroy_channel(ch);
}

/* ---- records ------------------------------------------------------------- */

static struct ib_async_chan_event krec(uint32_t type, uint64_t element,
				       uint32_t obj_type, uint64_t seq)
{
	return (struct ib_async_chan_event){
		.event = {
			.element = element, .seq = seq,
			.timestamp_ns = seq * 1000, .count = 1,
			.event_type = type, .port_num = 1, .obj_type = obj_type,
			.obj_handle = obj_type == IB_ASYNC_OBJ_PORT ? 0 : 4,
		},
		.cookie = seq + 100, .occurrences = 1,
		.last_timestamp_ns = seq * 1000,
	};
}

static void test_validation(struct ibasync_channel *ch)
{
	struct ibasync_event ev[2];

	fake.batches = 0;
#define BAD_GET(what, c, e, n, f) do {					\
	errno = 0;							\
	OK(ibasync_get_events(c, e, n, f) == -1 && errno == EINVAL,	\
	   "get_events refused: %s", what);				\
} while (0)
	BAD_GET("NULL channel", NULL, ev, 2, 0);
	BAD_GET("NULL array", ch, NULL, 2, 0);
	BAD_GET("n 0", ch, ev, 0, 0);
	BAD_GET("n < 0", ch, ev, -1, 0);
	BAD_GET("unknown flag", ch, ev, 2, 1U << 1);
#undef BAD_GET
	OK(fake.batches == 0, "nothing refused reached the kernel");
}

static void test_records(struct ibv_context *ctx)
{
	struct ibasync_channel *ch = ibasync_create_channel(ctx, 0);
	struct ibasync_event ev[FAKE_RECS + 1], guard;
	struct objs o;
	int n;

	objs_init(&o, ctx);
	test_validation(ch);
	fake.recs[0] = krec(IBV_EVENT_PORT_ERR, 2, IB_ASYNC_OBJ_PORT, 10);
	fake.recs[0].event.port_num = 2;
	fake.recs[0].occurrences = 3;
	fake.recs[0].last_timestamp_ns = 99999;
	fake.recs[1] = krec(IBV_EVENT_QP_FATAL, (uintptr_t)&o.qp,
			    IB_ASYNC_OBJ_QP, 11);
	fake.recs[2] = krec(IBV_EVENT_CQ_ERR, (uintptr_t)&o.cq,
			    IB_ASYNC_OBJ_CQ, 12);
	fake.recs[3] = krec(IBV_EVENT_SRQ_LIMIT_REACHED, (uintptr_t)&o.srq,
			    IB_ASYNC_OBJ_SRQ, 13);
	fake.recs[4] = krec(IBV_EVENT_WQ_FATAL, (uintptr_t)&o.wq,
			    IB_ASYNC_OBJ_WQ, 14);
	fake.recs[5] = (struct ib_async_chan_event){ .event = {
		.seq = 15, .timestamp_ns = 15000, .count = 7,
		.event_type = IB_ASYNC_EV_OVERFLOW,
		.obj_type = IB_ASYNC_OBJ_NONE } };
	fake.recs[6] = krec(IBV_EVENT_DEVICE_FATAL, 1, IB_ASYNC_OBJ_PORT, 22);
	fake.recs[6].cookie = 0;
	fake.nrecs = 7;
	fake.rec_next = 0;

	/* two first: the kernel is asked for as many as the caller has room */
	fake.batches = 0;
	memset(ev, 0xa5, sizeof(ev));
	guard = ev[2];
	n = ibasync_get_events(ch, ev, 2, 0);
	OK(n == 2 && fake.batches == 1 && fake.batch.count == 2 &&
	   fake.batch.argsz == sizeof(fake.batch) && fake.batch.flags == 0 &&
	   fake.batch.consume_seq == 0 && fake.batch.buf == (uintptr_t)ev,
	   "n 2: one READ_BATCH of 2 into the caller's array, consuming, "
	   "blocking");
	OK(!memcmp(&ev[2], &guard, sizeof(guard)),
	   "nothing written past what was returned");
	OK(ev[0].kind == IBASYNC_EVENT_ASYNC &&
	   ev[0].event_type == IBV_EVENT_PORT_ERR &&
	   ev[0].element.port_num == 2 && ev[0].port_num == 2 &&
	   ev[0].cookie == 110 && ev[0].occurrences == 3 &&
	   ev[0].lost == 0 && ev[0].seq == 10 && ev[0].timestamp_ns == 10000 &&
	   ev[0].last_timestamp_ns == 99999,
	   "port event: type, element port, port, cookie, occurrences, "
	   "seq, first and last time");
	OK(ev[1].kind == IBASYNC_EVENT_ASYNC &&
	   ev[1].event_type == IBV_EVENT_QP_FATAL && ev[1].element.qp == &o.qp &&
	   ev[1].port_num == 1 && ev[1].cookie == 111 &&
	   ev[1].occurrences == 1 && ev[1].seq == 11,
	   "QP event: element is the program's struct ibv_qp");

	/* the rest, in a larger array than there are records */
	memset(ev, 0xa5, sizeof(ev));
	n = ibasync_get_events(ch, ev, FAKE_RECS + 1, 0);
	OK(n == 5 && fake.batches == 2 && fake.batch.count == FAKE_RECS + 1,
	   "the rest: 5 records from one READ_BATCH");
	OK(ev[0].event_type == IBV_EVENT_CQ_ERR && ev[0].element.cq == &o.cq &&
	   ev[1].event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
	   ev[1].element.srq == &o.srq &&
	   ev[2].event_type == IBV_EVENT_WQ_FATAL && ev[2].element.wq == &o.wq,
	   "CQ, SRQ and WQ events: element names each object");
	OK(ev[3].kind == IBASYNC_EVENT_OVERFLOW && ev[3].lost == 7 &&
	   ev[3].seq == 15 && ev[3].timestamp_ns == 15000 &&
	   ev[3].occurrences == 0 && ev[3].cookie == 0 &&
	   !ev[3].element.qp && ev[3].port_num == 0,
	   "overflow: kind OVERFLOW, lost 7 from seq 15, nothing else");
	OK(ev[4].kind == IBASYNC_EVENT_ASYNC &&
	   ev[4].event_type == IBV_EVENT_DEVICE_FATAL &&
	   ev[4].element.port_num == 1 && ev[4].cookie == 0 &&
	   ev[4].seq == 22, "DEVICE_FATAL of no subscription: cookie 0");

	errno = 0;
	OK(ibasync_get_events(ch, ev, 4, IBASYNC_GET_NONBLOCK) == -1 &&
	   errno == EAGAIN && fake.batch.flags == IB_ASYNC_READ_NONBLOCK,
	   "IBASYNC_GET_NONBLOCK: READ_NONBLOCK asked; empty: -1, EAGAIN");
	fake.read_err = ENODEV;
	errno = 0;
	OK(ibasync_get_events(ch, ev, 4, 0) == -1 && errno == ENODEV,
	   "the stream's end: -1 with the kernel's errno (ENODEV)");
	fake.read_err = 0;
	ibasync_destroy_channel(ch);
}

int main(void)
{
	struct ibv_context *ctx, *other, *old;
	struct ft_fake0 ft;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	fake.on = true;
	fake.features = IB_ASYNC_FEATURE_READ_BATCH;
	old = ft_fake0_open(&ft);
	fake.features |= IB_ASYNC_FEATURE_EVENT_CHANNEL;
	ctx = ft_fake0_open(&ft);
	other = ft_fake0_open(&ft);
	if (!OK(ctx && other && old, "open fake0 three times"))
		return tap_done();
	test_create(ctx, old);
	test_subscribe_refusals(ctx, other);
	test_subscribe(ctx);
	test_records(ctx);
	fake.on = false;
	ibv_close_device(old);
	ibv_close_device(other);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}
