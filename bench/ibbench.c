// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibbench: async-event benchmark, ib_async against ib_uverbs.
 *
 * One source, two binaries that differ only in the library they link:
 *   ibbench-uverbs   rdma-core's libibverbs (ib_uverbs async fd)
 *   ibbench-ibasync  libibasync (ib_async node), built with -DBENCH_IBASYNC
 * Every measured path calls the same public API: ibv_get_device_list,
 * ibv_open_device, ibv_get_async_event, ibv_ack_async_event and
 * ibv_close_device. The ib_async build also asks libibasync, after the
 * measurement, how many events the kernel reported lost
 * (ibasync_lost_events) and how large the queue was (ibasync_query).
 * Queue lengths come from IBASYNC_QUEUE_LEN, read by libibasync at
 * ibv_open_device. The event-channel modes (drainb, coalesce and the
 * ib_async side of ffan) use libibasync's channel API
 * (<infiniband/ib_async.h>) and size a channel with
 * IB_ASYNC_IOC_SET_QUEUE_LEN on its descriptor; drainprof maps a ring of
 * its own on the node (IB_ASYNC_IOC_MAP_RING) to time the shim's parts
 * alone. The ib_async build counts every ioctl() of the process (the
 * shim's too), for system calls per event beside read()'s.
 *
 * Events come from ib_async_storm.ko: writing "<ibdev> SM_CHANGE <port> <n>"
 * to its debugfs file calls ib_dispatch_event() n times and returns after
 * the RDMA core's workqueue ran every handler, so both ib_uverbs and
 * ib_async have received all n events when write() returns.
 *
 * Modes (each prints one line of key=value pairs; bench.sh aggregates):
 *   stall N      open one context, storm N events without reading,
 *                measure kernel memory, then drain and count
 *   idle N       the same storm with no context open (baseline)
 *   drain N      storm N events without reading, then time the drain
 *                through ibv_get_async_event + ibv_ack_async_event
 *   fanout N C   C contexts read from one epoll loop while N events are
 *                dispatched; time until every context has all N
 *   latency K blocking|epoll
 *                K single events; dispatch -> return of the reader
 *   complat K    completion events: K SENDs on an RC loopback pair whose
 *                receiving CQ is armed on a completion channel; post ->
 *                return of ibv_get_cq_event() in a blocked reader thread
 *   compflood N R
 *                N CQs on one channel (N/2 RC loopback pairs, each QP's
 *                send and receive CQ its own), R rounds of one SEND per
 *                pair: every CQ completes and is re-armed each round;
 *                events/s through ibv_get_cq_event + ibv_ack_cq_events
 *   ffan N C TYPEA TYPEB [CHANQ]
 *                filtered fan-out: C contexts each wanting one of two
 *                event types, N events of both interleaved; ib_async
 *                reads only per-context event channels subscribed to the
 *                type, ib_uverbs reads everything and filters; then the
 *                same storm unread, for kernel memory (C = 0: the storm
 *                alone)
 *   dpprof K     where the data path's time goes: getppid, an empty
 *                poll, (ib_async) an ioctl refused and GET_INFO, then on
 *                an RC loopback pair ibv_post_recv, ibv_post_send and the
 *                two polls that find their completions, K of each as a
 *                loop, and K of the four in a row
 *   rateprof M N where the message rate's time goes: N rounds, each of
 *                8*M receives posted one by one, M lists of 8 SENDs (one
 *                completion each) and both CQs reaped 16 at a time, each
 *                part timed over the round; per message, the client's
 *                share and the server's
 *   recvprof D N only ibv_post_recv, for a profile of its path: N rounds
 *                of D receives on a QP in INIT, each round flushed (ERR)
 *                and reaped untimed; the receives' mean time
 *   stormcost TYPE N
 *                a storm of one type with no context open, timed
 *   drainb N [unread]
 *                (ib_async) drain N queued events through an event
 *                channel subscribed to everything, ibasync_get_events in
 *                batches of 64; with unread, the records are counted but
 *                not read: the library's part of the drain alone
 *   drainprof N  (ib_async) where the get+ack drain's time goes: the
 *                drain, taking records from a mapped ring by hand, the
 *                RING_WAIT behind a small ring, the ack, a mutex pair, a
 *                system call, a clock read, each as a whole loop
 *   coalesce N   (ib_async) a stalled reader on a coalescing channel
 *                during a storm of N: kernel memory growth, then one
 *                record with N occurrences expected
 *
 * The completion modes use only the public verbs (PD, MR, CQ, RC QPs on
 * the port's RoCE v2 IPv4-mapped GID, rxe's own loopback), the same on
 * both stacks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The test library's (selftests/ib_async/lib), without the harness. */
#define IBA_NO_HARNESS
#include "lib/iba_ibv.h"

#ifdef BENCH_IBASYNC
#include <sys/ioctl.h>
#include "lib/iba_ioctls.h"
#include <sys/mman.h>
#include <infiniband/ib_async.h>
#include <infiniband/ib_async_shim.h>
#define BENCH_SIDE "ib_async"
#else
#define BENCH_SIDE "uverbs"
#endif

#define STORM_FILE	"/sys/kernel/debug/ib_async_storm/dispatch"
#define STORM_TYPE	IBV_EVENT_SM_CHANGE
#define STORM_PORT	1
#define MAX_CTX		1024

static const char *ibdev_name = "rxe0";

static void die(const char *what)
{
	fprintf(stderr, "ibbench(%s): %s: %s\n", BENCH_SIDE, what,
		strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "ibbench(%s): %s\n", BENCH_SIDE, what);
	exit(1);
}

#ifdef BENCH_IBASYNC
/*
 * Every ioctl() of the process, libibasync's included (lib/ioctls.c):
 * with a mapped ring the shim's system calls are RING_WAITs, which syscr
 * does not count.
 */
static unsigned long ioctls(void)
{
	return iba_ioctls();
}
#else
static unsigned long ioctls(void)
{
	return 0;
}
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ull +
	       (uint64_t)tv->tv_usec * 1000ull;
}

/* ---- system counters ---------------------------------------------------- */

struct meminfo {
	long long memfree, slab, sunreclaim, vmalloc;	/* kB */
};

/*
 * Give every SLUB cache's empty slabs (per-CPU ones included) back to the
 * page allocator, so that Slab counts pages that hold live objects rather
 * than what the storm's own transient work items left cached. Aliases
 * (symlinks) name caches already visited.
 */
static void slab_shrink(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[512];
	struct stat st;
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) != 1) {
			/* best effort: the cache keeps its empty slabs */
		}
		close(fd);
	}
	closedir(d);
}

static void read_meminfo(struct meminfo *m)
{
	slab_shrink();
	m->memfree = iba_meminfo_kb("MemFree");
	m->slab = iba_meminfo_kb("Slab");
	m->sunreclaim = iba_meminfo_kb("SUnreclaim");
	m->vmalloc = iba_meminfo_kb("VmallocUsed");
	if (m->memfree < 0 || m->slab < 0 || m->sunreclaim < 0 ||
	    m->vmalloc < 0)
		die("/proc/meminfo");
}

/* read-family system calls this process made (/proc/self/io syscr) */
static long long read_syscr(void)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/self/io", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* system + irq + softirq time of all CPUs, in USER_HZ ticks */
static long long read_stat_sys(void)
{
	long long user, nice, sys, idle, iowait, irq, softirq;
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		die("/proc/stat");
	n = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld", &user, &nice,
		   &sys, &idle, &iowait, &irq, &softirq);
	fclose(f);
	if (n != 7)
		fail("/proc/stat: unexpected format");
	return sys + irq + softirq;
}

static double ticks_to_ms(long long ticks)
{
	return (double)ticks * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* ---- events ------------------------------------------------------------- */

static int storm_fd = -1;

/* A storm of @n events of the type named @type (as the storm file takes). */
static void storm_type(const char *type, unsigned long n)
{
	char cmd[128];
	int len = snprintf(cmd, sizeof(cmd), "%s %s %d %lu", ibdev_name, type,
			   STORM_PORT, n);

	if (storm_fd < 0) {
		storm_fd = open(STORM_FILE, O_WRONLY | O_CLOEXEC);
		if (storm_fd < 0)
			die(STORM_FILE " (ib_async_storm.ko loaded?)");
	}
	if (write(storm_fd, cmd, (size_t)len) != len)
		die("storm write");
}

static void storm(unsigned long n)
{
	storm_type("SM_CHANGE", n);
}

static struct ibv_context *open_ctx(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), ibdev_name)) {
			ctx = ibv_open_device(list[i]);
			if (!ctx)
				die("ibv_open_device");
			break;
		}
	}
	ibv_free_device_list(list);
	if (!ctx)
		fail("device not found");
	return ctx;
}

static void set_nonblock(struct ibv_context *ctx)
{
	int fl = fcntl(ctx->async_fd, F_GETFL);

	if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl O_NONBLOCK");
}

/*
 * One event through the public API. Returns 1 for a storm event, 0 for
 * another event (a stray link or GID event), -1 with errno (EAGAIN).
 */
static int get_one(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	int storm_ev;

	if (ibv_get_async_event(ctx, &ev))
		return -1;
	storm_ev = ev.event_type == STORM_TYPE;
	ibv_ack_async_event(&ev);
	return storm_ev;
}

/* Read until EAGAIN; returns the storm events read. */
static unsigned long drain_nonblock(struct ibv_context *ctx)
{
	unsigned long got = 0;
	int r;

	while ((r = get_one(ctx)) >= 0)
		got += (unsigned long)r;
	if (errno != EAGAIN)
		die("ibv_get_async_event");
	return got;
}

static unsigned long long lost_events(struct ibv_context *ctx)
{
#ifdef BENCH_IBASYNC
	return ibasync_lost_events(ctx);
#else
	(void)ctx;
	return 0;	/* ib_uverbs cannot tell */
#endif
}

/* The "ib_async-@name:" line of @fd's fdinfo, or -1 without one. */
static long long fdinfo_value(int fd, const char *name)
{
	char path[64], line[128], key[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(key, sizeof(key), "ib_async-%s: %%lld", name);
	f = fopen(path, "r");
	if (!f)
		die("fdinfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, key, &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Records the context's mapped event ring holds (0: none), which hold
 * events as the queue does: the file's capacity is the sum.
 */
static unsigned int ring_entries(struct ibv_context *ctx)
{
	long long v = fdinfo_value(ctx->async_fd, "ring-entries");

	return v > 0 ? (unsigned int)v : 0;
}

static unsigned int queue_len(struct ibv_context *ctx)
{
#ifdef BENCH_IBASYNC
	struct ib_async_info info;

	memset(&info, 0, sizeof(info));
	if (ibasync_query(ctx, &info))
		die("ibasync_query");
	return info.queue_len;
#else
	(void)ctx;
	return 0;	/* unbounded */
#endif
}

/* Let stray events (link up, GID adds at boot) arrive and drop them. */
static void quiesce(struct ibv_context *ctx)
{
	set_nonblock(ctx);
	usleep(20000);
	drain_nonblock(ctx);
}

/* ---- modes -------------------------------------------------------------- */

static void mode_stall(unsigned long n)
{
	struct meminfo m0, m1, m2;
	struct ibv_context *ctx;
	unsigned long long lost;
	unsigned long got;
	unsigned int qlen, ring;

	read_meminfo(&m0);
	ctx = open_ctx();
	quiesce(ctx);
	read_meminfo(&m1);
	storm(n);		/* reader stalled: nothing is read */
	read_meminfo(&m2);
	got = drain_nonblock(ctx);
	lost = lost_events(ctx);
	qlen = queue_len(ctx);
	ring = ring_entries(ctx);
	ibv_close_device(ctx);
	printf("side=%s mode=stall n=%lu got=%lu lost=%llu qlen=%u ring=%u "
	       "open_kb=%lld slab_kb=%lld sunreclaim_kb=%lld vmalloc_kb=%lld "
	       "memfree_drop_kb=%lld complete=%d\n",
	       BENCH_SIDE, n, got, lost, qlen, ring, m0.memfree - m1.memfree,
	       m2.slab - m1.slab, m2.sunreclaim - m1.sunreclaim,
	       m2.vmalloc - m1.vmalloc, m1.memfree - m2.memfree,
	       got + lost == n);
}

/* The same storm with no context open: the cost every storm leaves. */
static void mode_idle(unsigned long n)
{
	struct meminfo m1, m2;

	read_meminfo(&m1);
	storm(n);
	read_meminfo(&m2);
	printf("side=none mode=stall n=%lu slab_kb=%lld sunreclaim_kb=%lld "
	       "vmalloc_kb=%lld memfree_drop_kb=%lld\n",
	       n, m2.slab - m1.slab, m2.sunreclaim - m1.sunreclaim,
	       m2.vmalloc - m1.vmalloc, m1.memfree - m2.memfree);
}

static void mode_drain(unsigned long n)
{
	struct ibv_context *ctx = open_ctx();
	long long r0, r1;
	uint64_t t0, t1;
	unsigned long got = 0, io0, io1;
	int r;

	quiesce(ctx);
	storm(n);
	r0 = read_syscr();
	io0 = ioctls();
	t0 = now_ns();
	while (got < n) {
		r = get_one(ctx);
		if (r < 0) {
			if (errno == EAGAIN)
				break;	/* fewer than n queued: lost */
			die("ibv_get_async_event");
		}
		got += (unsigned long)r;
	}
	t1 = now_ns();
	io1 = ioctls();
	r1 = read_syscr();
	printf("side=%s mode=drain n=%lu got=%lu lost=%llu qlen=%u "
	       "ns=%llu evps=%.0f reads=%lld reads_per_ev=%.4f ioctls=%lu "
	       "ioctls_per_ev=%.4f\n",
	       BENCH_SIDE, n, got, lost_events(ctx), queue_len(ctx),
	       (unsigned long long)(t1 - t0),
	       (double)got * 1e9 / (double)(t1 - t0), r1 - r0 - 1,
	       got ? (double)(r1 - r0 - 1) / (double)got : 0.0, io1 - io0,
	       got ? (double)(io1 - io0) / (double)got : 0.0);
	ibv_close_device(ctx);
}

struct storm_arg {
	unsigned long n;
	uint64_t t_start, t_end;
};

static void *storm_thread(void *p)
{
	struct storm_arg *a = p;

	a->t_start = now_ns();
	storm(a->n);
	a->t_end = now_ns();
	return NULL;
}

/* epoll_wait() for up to 10 s, again after a signal: ready fds, 0 if none. */
static int wait_ready(int ep, struct epoll_event *evs, int max)
{
	int k;

	do
		k = epoll_wait(ep, evs, max, 10000);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		die("epoll_wait");
	return k;
}

static void mode_fanout(unsigned long n, int nctx)
{
	static struct ibv_context *ctx[MAX_CTX];
	static unsigned long got[MAX_CTX];
	struct epoll_event evs[64];
	struct rusage ru0, ru1;
	struct storm_arg sa = { .n = n };
	unsigned long long lost = 0;
	long long st0, st1;
	int ep, i, done = 0;
	pthread_t thr;
	uint64_t t_done;

	if (nctx < 1 || nctx > MAX_CTX)
		fail("fanout: 1..1024 contexts");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < nctx; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		ctx[i] = open_ctx();
		quiesce(ctx[i]);
		if (epoll_ctl(ep, EPOLL_CTL_ADD, ctx[i]->async_fd, &e))
			die("epoll_ctl");
	}
	storm_fd = open(STORM_FILE, O_WRONLY | O_CLOEXEC);
	if (storm_fd < 0)
		die(STORM_FILE);
	getrusage(RUSAGE_SELF, &ru0);
	st0 = read_stat_sys();
	if (pthread_create(&thr, NULL, storm_thread, &sa))
		fail("pthread_create");
	while (done < nctx) {
		int k = wait_ready(ep, evs, 64);

		if (k == 0)
			break;	/* 10 s without an event: events lost */
		for (i = 0; i < k; i++) {
			unsigned int c = evs[i].data.u32;
			int was_done = got[c] >= n;

			got[c] += drain_nonblock(ctx[c]);
			if (!was_done && got[c] >= n)
				done++;
		}
	}
	t_done = now_ns();
	pthread_join(thr, NULL);
	st1 = read_stat_sys();
	getrusage(RUSAGE_SELF, &ru1);
	for (i = 0; i < nctx; i++) {
		lost += lost_events(ctx[i]);
		ibv_close_device(ctx[i]);
	}
	close(ep);
	printf("side=%s mode=fanout n=%lu ctx=%d complete=%d lost=%llu "
	       "ms=%.2f storm_ms=%.2f proc_sys_ms=%.2f proc_user_ms=%.2f "
	       "sys_ms=%.2f\n",
	       BENCH_SIDE, n, nctx, done == nctx, lost,
	       (double)(t_done - sa.t_start) / 1e6,
	       (double)(sa.t_end - sa.t_start) / 1e6,
	       (double)(tv_ns(&ru1.ru_stime) - tv_ns(&ru0.ru_stime)) / 1e6,
	       (double)(tv_ns(&ru1.ru_utime) - tv_ns(&ru0.ru_utime)) / 1e6,
	       ticks_to_ms(st1 - st0));
}

struct lat_shared {
	struct ibv_context *ctx;
	int use_epoll;
	int k;
	_Atomic uint64_t t_ret;	/* 0 while the reader waits */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int seen;
};

static void *lat_reader(void *p)
{
	struct lat_shared *s = p;
	int ep = -1, i;

	if (s->use_epoll) {
		struct epoll_event e = { .events = EPOLLIN };

		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, s->ctx->async_fd, &e))
			die("epoll");
	}
	for (i = 0; i < s->k; i++) {
		struct ibv_async_event ev;
		uint64_t t;

		for (;;) {
			if (s->use_epoll) {
				struct epoll_event e;

				if (epoll_wait(ep, &e, 1, -1) < 0) {
					if (errno == EINTR)
						continue;
					die("epoll_wait");
				}
			}
			if (ibv_get_async_event(s->ctx, &ev)) {
				if (errno == EAGAIN || errno == EINTR)
					continue;
				die("ibv_get_async_event");
			}
			t = now_ns();
			ibv_ack_async_event(&ev);
			if (ev.event_type == STORM_TYPE)
				break;
		}
		pthread_mutex_lock(&s->mu);
		atomic_store(&s->t_ret, t);
		s->seen++;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	if (ep >= 0)
		close(ep);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void mode_latency(int k, int use_epoll)
{
	/* k samples after one warm-up event */
	struct lat_shared s = { .use_epoll = use_epoll, .k = k + 1 };
	uint64_t *lat = calloc((size_t)k, sizeof(*lat));
	pthread_t thr;
	int i;

	if (!lat || k < 1)
		fail("latency: bad sample count");
	s.ctx = open_ctx();
	quiesce(s.ctx);
	if (!use_epoll) {
		/* the blocking reader blocks inside ibv_get_async_event */
		int fl = fcntl(s.ctx->async_fd, F_GETFL);

		if (fl < 0 ||
		    fcntl(s.ctx->async_fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			die("fcntl");
	}
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	if (pthread_create(&thr, NULL, lat_reader, &s))
		fail("pthread_create");
	storm(1);		/* warm-up, not a sample */
	pthread_mutex_lock(&s.mu);
	while (s.seen < 1)
		pthread_cond_wait(&s.cv, &s.mu);
	pthread_mutex_unlock(&s.mu);
	for (i = 0; i < k; i++) {
		uint64_t t0;

		usleep(2000);	/* the reader is back in its wait */
		t0 = now_ns();
		storm(1);
		pthread_mutex_lock(&s.mu);
		while (s.seen < i + 2)
			pthread_cond_wait(&s.cv, &s.mu);
		lat[i] = atomic_load(&s.t_ret) - t0;
		pthread_mutex_unlock(&s.mu);
	}
	pthread_join(thr, NULL);
	qsort(lat, (size_t)k, sizeof(*lat), cmp_u64);
	printf("side=%s mode=latency reader=%s k=%d p50_us=%.1f p99_us=%.1f "
	       "max_us=%.1f\n",
	       BENCH_SIDE, use_epoll ? "epoll" : "blocking", k,
	       (double)lat[k / 2] / 1e3,
	       (double)lat[(k * 99 + 99) / 100 - 1] / 1e3,
	       (double)lat[k - 1] / 1e3);
	ibv_close_device(s.ctx);
	free(lat);
}

static double us_since(uint64_t t0)
{
	return (now_ns() - t0) / 1000.0;
}

/*
 * With n unaffiliated records queued on the context (a stalled reader),
 * destroy a QP, a CQ and a PD, none of which has a record of its own:
 * what a destroy costs when the queue is long.
 */
static void mode_destroy(unsigned long n)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	double qp_us, cq_us, pd_us;
	struct ibv_context *ctx;
	unsigned long got;
	uint64_t t0;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;

	ctx = open_ctx();
	quiesce(ctx);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &init) : NULL;
	if (!qp)
		die("PD, CQ or QP");
	storm(n);
	t0 = now_ns();
	if (ibv_destroy_qp(qp))
		die("ibv_destroy_qp");
	qp_us = us_since(t0);
	t0 = now_ns();
	if (ibv_destroy_cq(cq))
		die("ibv_destroy_cq");
	cq_us = us_since(t0);
	t0 = now_ns();
	if (ibv_dealloc_pd(pd))
		die("ibv_dealloc_pd");
	pd_us = us_since(t0);
	got = drain_nonblock(ctx);
	ibv_close_device(ctx);
	printf("side=%s mode=destroy n=%lu got=%lu qp_us=%.1f cq_us=%.1f "
	       "pd_us=%.1f\n", BENCH_SIDE, n, got, qp_us, cq_us, pd_us);
}

/* ---- completion events -------------------------------------------------- */

#define COMP_MSG	64
#define COMP_RECVS	16	/* receives kept posted per QP */

struct rc_end {
	struct ibv_qp *qp;
	struct ibv_cq *cq;	/* send and receive */
	char *buf;		/* COMP_MSG bytes per receive, then the send */
	struct ibv_mr *mr;
};

struct comp_bed {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	union ibv_gid gid;
	int sgid;
};

static void bed_open(struct comp_bed *b)
{
	b->ctx = open_ctx();
	b->pd = ibv_alloc_pd(b->ctx);
	b->chan = ibv_create_comp_channel(b->ctx);
	if (!b->pd || !b->chan)
		die("ibv_alloc_pd / ibv_create_comp_channel");
	/* from sysfs, the same for both stacks (the test library's) */
	b->sgid = iba_roce_v2_gid(ibdev_name, b->gid.raw);
	if (b->sgid < 0)
		fail("no RoCE v2 IPv4-mapped GID on port 1");
}

/*
 * A QP whose CQ reports to the channel when @armed, else is polled; @extra
 * more requests of each kind fit its queues and its CQ. Every send is
 * signalled when @sig_all, else only those that ask.
 */
static void end_make_sig(struct comp_bed *b, struct rc_end *e, int armed,
			 unsigned int extra, int sig_all)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = sig_all,
		.cap = { .max_send_wr = 64 + extra,
			 .max_recv_wr = 2 * COMP_RECVS + extra,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = (COMP_RECVS + 1) * COMP_MSG;

	e->cq = ibv_create_cq(b->ctx, (int)(2 * (64 + COMP_RECVS + extra)), e,
			      armed ? b->chan : NULL, 0);
	if (!e->cq)
		die("ibv_create_cq");
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	e->qp = ibv_create_qp(b->pd, &init);
	e->buf = calloc(1, len);
	if (!e->qp || !e->buf)
		die("ibv_create_qp");
	e->mr = ibv_reg_mr(b->pd, e->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		die("ibv_reg_mr");
	if (armed && ibv_req_notify_cq(e->cq, 0))
		die("ibv_req_notify_cq");
}

static void end_make(struct comp_bed *b, struct rc_end *e, int armed,
		     unsigned int extra)
{
	end_make_sig(b, e, armed, extra, 1);
}

static void end_post_recv(struct rc_end *e, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + slot * COMP_MSG,
		.length = COMP_MSG, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(e->qp, &wr, &bad))
		die("ibv_post_recv");
}

static void end_post_send(struct rc_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + COMP_RECVS * COMP_MSG,
		.length = COMP_MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = { .wr_id = ~0ull, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (ibv_post_send(e->qp, &wr, &bad))
		die("ibv_post_send");
}

static void rc_init(struct ibv_qp *qp)
{
	if (iba_ibv_rc_init(qp, 0))
		die("modify INIT");
}

/* Walk @qp from INIT to RTS, connected to @dqpn on this port's GID. */
static void rc_connect(struct comp_bed *b, struct ibv_qp *qp, uint32_t dqpn)
{
	if (iba_ibv_rc_connect(qp, dqpn, &b->gid, b->sgid, 1, 1))
		die("modify RTR/RTS");
}

/* Two ends connected to each other, every receive posted. */
static void pair_make(struct comp_bed *b, struct rc_end *s, int s_armed,
		      struct rc_end *r, int r_armed)
{
	unsigned int i;

	end_make(b, s, s_armed, 0);
	end_make(b, r, r_armed, 0);
	rc_init(s->qp);
	rc_init(r->qp);
	for (i = 0; i < COMP_RECVS; i++) {
		end_post_recv(s, i);
		end_post_recv(r, i);
	}
	rc_connect(b, s->qp, r->qp->qp_num);
	rc_connect(b, r->qp, s->qp->qp_num);
}

/* Poll @e's CQ dry, re-posting each receive; returns completions. */
static int end_reap(struct rc_end *e)
{
	struct ibv_wc wc[16];
	int n, i, total = 0;

	while ((n = ibv_poll_cq(e->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* numeric: the shim has no status strings */
				fprintf(stderr, "ibbench(%s): wc status %d\n",
					BENCH_SIDE, (int)wc[i].status);
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_RECV)
				end_post_recv(e, (unsigned int)wc[i].wr_id);
		}
		total += n;
	}
	if (n < 0)
		fail("ibv_poll_cq");
	return total;
}

static void end_free(struct rc_end *e)
{
	if (ibv_destroy_qp(e->qp) || ibv_dereg_mr(e->mr) ||
	    ibv_destroy_cq(e->cq))
		die("destroy QP, MR or CQ");
	free(e->buf);
}

static void bed_close(struct comp_bed *b)
{
	if (ibv_destroy_comp_channel(b->chan) || ibv_dealloc_pd(b->pd))
		die("destroy channel or PD");
	ibv_close_device(b->ctx);
}

/*
 * Completion events the kernel lost on the channel: ib_async's channel
 * file says so in its fdinfo; ib_uverbs' (no bound, no count) does not:
 * -1.
 */
static long long chan_lost(struct ibv_comp_channel *chan)
{
	return fdinfo_value(chan->fd, "lost");
}

/* One completion event: ack it, re-arm its CQ, reap the CQ. */
static struct rc_end *comp_event(struct comp_bed *b)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	struct rc_end *e;

	if (ibv_get_cq_event(b->chan, &cq, &cq_ctx))
		die("ibv_get_cq_event");
	e = cq_ctx;
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		die("ibv_req_notify_cq");
	end_reap(e);
	return e;
}

struct complat_shared {
	struct comp_bed *b;
	int k;
	uint64_t t_ret;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int seen;
};

static void *complat_reader(void *p)
{
	struct complat_shared *s = p;
	struct ibv_cq *cq;
	void *cq_ctx;
	int i;

	for (i = 0; i < s->k; i++) {
		uint64_t t;

		if (ibv_get_cq_event(s->b->chan, &cq, &cq_ctx))
			die("ibv_get_cq_event");
		t = now_ns();
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(cq, 0))
			die("ibv_req_notify_cq");
		if (end_reap(cq_ctx) != 1)
			fail("complat: not one receive per event");
		pthread_mutex_lock(&s->mu);
		s->t_ret = t;
		s->seen++;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

/*
 * K SENDs from one end of an RC loopback pair; the other end's CQ is
 * armed on the channel and a reader thread waits in ibv_get_cq_event().
 * Latency: ibv_post_send() called -> ibv_get_cq_event() returned.
 */
static void mode_complat(int k)
{
	struct complat_shared s = { .k = k + 1 };
	struct comp_bed b;
	struct rc_end snd, rcv;
	uint64_t *lat = calloc((size_t)k, sizeof(*lat));
	pthread_t thr;
	int i, sent = 0, done = 0;

	if (!lat || k < 1)
		fail("complat: bad sample count");
	bed_open(&b);
	pair_make(&b, &snd, 0, &rcv, 1);
	s.b = &b;
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	if (pthread_create(&thr, NULL, complat_reader, &s))
		fail("pthread_create");
	for (i = -1; i < k; i++) {	/* -1: warm-up, not a sample */
		uint64_t t0;

		usleep(2000);	/* the reader is back in its wait */
		t0 = now_ns();
		end_post_send(&snd);
		sent++;
		pthread_mutex_lock(&s.mu);
		while (s.seen < i + 2)
			pthread_cond_wait(&s.cv, &s.mu);
		if (i >= 0)
			lat[i] = s.t_ret - t0;
		pthread_mutex_unlock(&s.mu);
		done += end_reap(&snd);
	}
	pthread_join(thr, NULL);
	while (done < sent)
		done += end_reap(&snd);
	qsort(lat, (size_t)k, sizeof(*lat), cmp_u64);
	printf("side=%s mode=complat k=%d p50_us=%.1f p999_us=%.1f "
	       "max_us=%.1f\n",
	       BENCH_SIDE, k, (double)lat[k / 2] / 1e3,
	       (double)lat[(k * 999 + 999) / 1000 - 1] / 1e3,
	       (double)lat[k - 1] / 1e3);
	end_free(&snd);
	end_free(&rcv);
	bed_close(&b);
	free(lat);
}

/*
 * Nothing but receives, as many as wanted: a QP in INIT takes them and
 * never completes them, so each round of @d ends by flushing them (ERR,
 * each reaped as a flush error) and walking the QP back through RESET.
 * Only the posts are timed; a profiler run over the whole sees the
 * receive's path and little else (make bench-profile).
 */
static void mode_recvprof(int d, int n)
{
	struct ibv_qp_attr attr = { 0 };
	struct comp_bed b;
	struct rc_end r;
	struct ibv_wc wc[16];
	uint64_t t0, posts = 0;
	int round, i, got, m;

	if (d < 1 || n < 1)
		fail("recvprof: bad count");
	bed_open(&b);
	end_make(&b, &r, 0, (unsigned int)d);
	for (round = 0; round < n; round++) {
		rc_init(r.qp);
		t0 = now_ns();
		for (i = 0; i < d; i++)
			end_post_recv(&r, (unsigned int)(i % COMP_RECVS));
		posts += now_ns() - t0;
		attr.qp_state = IBV_QPS_ERR;
		if (ibv_modify_qp(r.qp, &attr, IBV_QP_STATE))
			die("modify ERR");
		for (got = 0; got < d; got += m) {
			m = ibv_poll_cq(r.cq, 16, wc);
			if (m < 0)
				fail("recvprof: poll");
			for (i = 0; i < m; i++)
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					fail("recvprof: not a flush");
		}
		attr.qp_state = IBV_QPS_RESET;
		if (ibv_modify_qp(r.qp, &attr, IBV_QP_STATE))
			die("modify RESET");
	}
	printf("side=%s mode=recvprof d=%d n=%d post_recv_ns=%.0f\n",
	       BENCH_SIDE, d, n, (double)posts / ((double)d * n));
	end_free(&r);
	bed_close(&b);
}

#define POLL_BATCH_MAX	16	/* completions per poll at most, as perftest's */

/*
 * Poll @cq, up to @batch completions a poll, until it gave @n successful
 * ones; the polls that found none.
 */
static unsigned long poll_n(struct ibv_cq *cq, int n, int batch)
{
	struct ibv_wc wc[POLL_BATCH_MAX];
	unsigned long empty = 0;
	int got, i;

	if (batch < 1 || batch > POLL_BATCH_MAX)
		fail("poll_n: bad batch");
	while (n > 0) {
		got = ibv_poll_cq(cq, batch, wc);
		if (got < 0)
			fail("poll of a CQ");
		if (!got)
			empty++;
		for (i = 0; i < got; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				fail("a completion in error");
		n -= got;
	}
	return empty;
}

/*
 * Where the data path's time goes, each part as a whole loop of K (no
 * clock read per call: clock_gettime is a system call in the guest):
 * getppid(); an empty ibv_poll_cq(); on ib_async an ioctl the node
 * refuses (ENOTTY: the fixed cost of reaching its dispatcher) and
 * GET_INFO; then on an RC loopback pair with room for K of everything:
 * K ibv_post_recv, on ib_async K doorbells of the receive ring with
 * nothing left in it (what a post pays before its request: the command,
 * the locks and the ring's lookup; the rest of ibv_post_recv is the
 * request's own), K ibv_post_send (SEND, signalled; rxe runs the whole
 * transfer before the call returns), K polls of the sender's CQ and K of
 * the receiver's, each finding one completion; then K iterations of all
 * four in a row, as in a ping-pong.
 */
static void mode_dpprof(int k)
{
	struct comp_bed b;
	struct rc_end s, r;
	struct ibv_wc wc;
	double sys, empty, notty = 0, info = 0, bell = 0, precv, psend, pscq;
	double prcq, iter;
	unsigned long waits = 0;
	uint64_t t0;
	int i;

	if (k < 1)
		fail("dpprof: bad count");
	bed_open(&b);
	end_make(&b, &s, 0, (unsigned int)k);
	end_make(&b, &r, 0, (unsigned int)k);
	rc_init(s.qp);
	rc_init(r.qp);
	rc_connect(&b, s.qp, r.qp->qp_num);
	rc_connect(&b, r.qp, s.qp->qp_num);

	t0 = now_ns();
	for (i = 0; i < k; i++)
		(void)syscall(SYS_getppid);
	sys = (double)(now_ns() - t0) / k;
	t0 = now_ns();
	for (i = 0; i < k; i++)
		if (ibv_poll_cq(s.cq, 1, &wc))
			fail("dpprof: completion on an idle CQ");
	empty = (double)(now_ns() - t0) / k;
#ifdef BENCH_IBASYNC
	{
		struct ib_async_info in = { .argsz = sizeof(in) };
		int fd = b.ctx->cmd_fd;

		t0 = now_ns();
		for (i = 0; i < k; i++)
			(void)ioctl(fd, _IO(IB_ASYNC_IOC_MAGIC, 0xff));
		notty = (double)(now_ns() - t0) / k;
		t0 = now_ns();
		for (i = 0; i < k; i++)
			if (ioctl(fd, IB_ASYNC_IOC_GET_INFO, &in))
				die("GET_INFO");
		info = (double)(now_ns() - t0) / k;
	}
#endif
	t0 = now_ns();
	for (i = 0; i < k; i++)
		end_post_recv(&r, (unsigned int)(i % COMP_RECVS));
	precv = (double)(now_ns() - t0) / k;
#ifdef BENCH_IBASYNC
	{
		/* the uAPI's doorbell value: handle << 1 | kind */
		unsigned long db = (unsigned long)r.qp->handle << 1 |
				   IB_ASYNC_WR_RING_RECV;
		int fd = b.ctx->cmd_fd;

		t0 = now_ns();
		for (i = 0; i < k; i++)
			if (ioctl(fd, IB_ASYNC_IOC_WR_DOORBELL, db))
				die("WR_DOORBELL of an empty ring");
		bell = (double)(now_ns() - t0) / k;
	}
#endif
	t0 = now_ns();
	for (i = 0; i < k; i++)
		end_post_send(&s);
	psend = (double)(now_ns() - t0) / k;
	t0 = now_ns();
	waits += poll_n(s.cq, k, 1);
	pscq = (double)(now_ns() - t0) / k;
	t0 = now_ns();
	waits += poll_n(r.cq, k, 1);
	prcq = (double)(now_ns() - t0) / k;

	t0 = now_ns();
	for (i = 0; i < k; i++) {
		end_post_recv(&r, (unsigned int)(i % COMP_RECVS));
		end_post_send(&s);
		waits += poll_n(s.cq, 1, 1);
		waits += poll_n(r.cq, 1, 1);
	}
	iter = (double)(now_ns() - t0) / k;
	printf("side=%s mode=dpprof k=%d syscall_ns=%.0f empty_poll_ns=%.0f "
	       "notty_ns=%.0f get_info_ns=%.0f post_recv_ns=%.0f "
	       "doorbell_ns=%.0f post_send_ns=%.0f poll_send_ns=%.0f "
	       "poll_recv_ns=%.0f iter_ns=%.0f empty_polls=%lu\n", BENCH_SIDE,
	       k, sys, empty, notty, info, precv, bell, psend, pscq, prcq, iter,
	       waits);
	end_free(&s);
	end_free(&r);
	bed_close(&b);
}

#define RATE_LIST	8	/* SENDs per post list, make bench's -l 8 */

/* Post a list of RATE_LIST 64-byte SENDs on @e, the last one signalled. */
static void end_post_list(struct rc_end *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + COMP_RECVS * COMP_MSG,
		.length = COMP_MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr[RATE_LIST], *bad;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < RATE_LIST; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i + 1 < RATE_LIST ? &wr[i + 1] : NULL;
	}
	wr[RATE_LIST - 1].send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(e->qp, wr, &bad))
		die("ibv_post_send of a list");
}

/*
 * Where the message rate's time goes: the calls of make bench's send_rate
 * row (ib_send_bw -s 64 -l 8), made by one process on an RC loopback
 * pair. The client's part: lists of RATE_LIST SENDs with the last one
 * signalled (perftest's completion per list), and the polls that find
 * those completions; the server's: polls of its receives, POLL_BATCH_MAX at a
 * time, and one ibv_post_recv per message, as perftest's server loop
 * makes them. Each of @n rounds posts @m lists' receives, the @m lists,
 * then reaps both CQs; each part is timed over the round as a whole
 * (four clock reads a round) and given per message. perftest runs the
 * two sides as two processes on two CPUs, so the slower side's time per
 * message bounds its rate.
 */
static void mode_rateprof(int m, int n)
{
	unsigned int msgs = (unsigned int)m * RATE_LIST, j;
	uint64_t t0, t1, t2, t3, t4, precv = 0, plist = 0, pscq = 0, prcq = 0;
	unsigned long waits = 0;
	struct comp_bed b;
	struct rc_end s, r;
	double per;
	int round, i;

	if (m < 1 || n < 1 || m > 64)
		fail("rateprof: 1-64 lists a round, 1 round or more");
	bed_open(&b);
	end_make_sig(&b, &s, 0, msgs, 0);
	end_make(&b, &r, 0, msgs);
	rc_init(s.qp);
	rc_init(r.qp);
	rc_connect(&b, s.qp, r.qp->qp_num);
	rc_connect(&b, r.qp, s.qp->qp_num);
	for (round = 0; round < n; round++) {
		t0 = now_ns();
		for (j = 0; j < msgs; j++)
			end_post_recv(&r, j % COMP_RECVS);
		t1 = now_ns();
		for (i = 0; i < m; i++)
			end_post_list(&s);
		t2 = now_ns();
		waits += poll_n(s.cq, m, POLL_BATCH_MAX);
		t3 = now_ns();
		waits += poll_n(r.cq, (int)msgs, POLL_BATCH_MAX);
		t4 = now_ns();
		precv += t1 - t0;
		plist += t2 - t1;
		pscq += t3 - t2;
		prcq += t4 - t3;
	}
	per = (double)msgs * n;
	printf("side=%s mode=rateprof m=%d n=%d list=%d post_list_ns=%.0f "
	       "poll_send_ns=%.0f poll_recv_ns=%.0f post_recv_ns=%.0f "
	       "client_ns=%.0f server_ns=%.0f empty_polls=%lu\n", BENCH_SIDE,
	       m, n, RATE_LIST, (double)plist / per, (double)pscq / per,
	       (double)prcq / per, (double)precv / per,
	       (double)(plist + pscq) / per, (double)(prcq + precv) / per,
	       waits);
	end_free(&s);
	end_free(&r);
	bed_close(&b);
}

/*
 * N CQs on one channel, N/2 RC loopback pairs, each end with its own CQ
 * for both directions. A round posts one SEND per pair, which completes
 * the sender's CQ (send) and the receiver's (receive): N events, each
 * drained through ibv_get_cq_event + ibv_ack_cq_events, its CQ re-armed
 * and reaped. Timed over R rounds (after one warm-up round).
 */
static void mode_compflood(int ncq, int rounds)
{
	int npair = ncq / 2, r, i;
	unsigned long events = 0;
	struct rc_end *e;
	struct comp_bed b;
	uint64_t t0, t1;

	if (npair < 1 || rounds < 1)
		fail("compflood: N >= 2 CQs, R >= 1 rounds");
	e = calloc((size_t)ncq, sizeof(*e));
	if (!e)
		die("calloc");
	bed_open(&b);
	for (i = 0; i < npair; i++)
		pair_make(&b, &e[2 * i], 1, &e[2 * i + 1], 1);
	t0 = 0;
	for (r = -1; r < rounds; r++) {
		if (r == 0)
			t0 = now_ns();
		for (i = 0; i < npair; i++)
			end_post_send(&e[2 * i]);
		/*
		 * Each CQ gets exactly one event per round: its one
		 * completion arrives after it was re-armed.
		 */
		for (i = 0; i < 2 * npair; i++)
			comp_event(&b);
		if (r >= 0)
			events += 2 * npair;
	}
	t1 = now_ns();
	printf("side=%s mode=compflood cqs=%d rounds=%d events=%lu lost=%lld "
	       "ns=%llu evps=%.0f\n",
	       BENCH_SIDE, 2 * npair, rounds, events, chan_lost(b.chan),
	       (unsigned long long)(t1 - t0),
	       (double)events * 1e9 / (double)(t1 - t0));
	for (i = 0; i < 2 * npair; i++)
		end_free(&e[i]);
	bed_close(&b);
	free(e);
}

/* ---- event channels: batched drain, filtered fan-out, coalescing ------- */

#define CHAN_BATCH	64	/* records per ibasync_get_events() */
#define FFAN_CHUNK	256	/* events of one type per storm write */

/* The types the storm module raises, by the name its file takes. */
static const struct {
	const char *name;
	enum ibv_event_type type;
} storm_names[] = {
	{ "PORT_ACTIVE", IBV_EVENT_PORT_ACTIVE },
	{ "PORT_ERR", IBV_EVENT_PORT_ERR },
	{ "LID_CHANGE", IBV_EVENT_LID_CHANGE },
	{ "PKEY_CHANGE", IBV_EVENT_PKEY_CHANGE },
	{ "SM_CHANGE", IBV_EVENT_SM_CHANGE },
	{ "CLIENT_REREGISTER", IBV_EVENT_CLIENT_REREGISTER },
};

static enum ibv_event_type storm_type_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(storm_names) / sizeof(storm_names[0]); i++)
		if (!strcmp(storm_names[i].name, name))
			return storm_names[i].type;
	fail("unknown storm event type");
	return IBV_EVENT_SM_CHANGE;
}

static long long mem_kb(const struct meminfo *a, const struct meminfo *b)
{
	return (b->slab - a->slab) + (b->vmalloc - a->vmalloc);
}

#ifdef BENCH_IBASYNC
/* A non-blocking event channel of @ctx holding @qlen records (0: default). */
static struct ibasync_channel *chan_open(struct ibv_context *ctx,
					 unsigned int flags, unsigned int qlen)
{
	struct ibasync_channel *ch;
	struct ib_async_queue_len q = { .argsz = sizeof(q) };

	ch = ibasync_create_channel(ctx, IBASYNC_CHANNEL_NONBLOCK | flags);
	if (!ch)
		die("ibasync_create_channel");
	q.queue_len = qlen;
	if (qlen && ioctl(ibasync_channel_fd(ch), IB_ASYNC_IOC_SET_QUEUE_LEN,
			  &q))
		die("IB_ASYNC_IOC_SET_QUEUE_LEN on a channel");
	return ch;
}

static unsigned int chan_qlen(struct ibasync_channel *ch)
{
	struct ib_async_info info = { .argsz = sizeof(info) };

	if (ioctl(ibasync_channel_fd(ch), IB_ASYNC_IOC_GET_INFO, &info))
		die("IB_ASYNC_IOC_GET_INFO on a channel");
	return info.queue_len;
}

/* Subscribe @ch to @types (type bits; 0: every event). */
static void chan_sub(struct ibasync_channel *ch, uint64_t types,
		     uint64_t cookie)
{
	struct ibasync_subscription sub = {
		.flags = types ? IBASYNC_SUB_TYPES : 0,
		.types = types,
		.cookie = cookie,
	};

	if (ibasync_subscribe(ch, &sub, NULL))
		die("ibasync_subscribe");
}

/*
 * Drain through an event channel subscribed to everything: the storm
 * queued first (channel queue n + 1024), then ibasync_get_events() in
 * batches of CHAN_BATCH until n storm events were returned. @unread: the
 * records returned are counted, not read, so that the time is
 * ibasync_get_events()'s alone (the queue cannot overflow, and a stray
 * port event during the storm would count as one of 10^5); the figure
 * the target is judged on reads each record, as a consumer does. The context's
 * own queue (IBASYNC_QUEUE_LEN, small) gets every event too; it is not read.
 * One ibasync_get_events() before the storm, finding nothing, maps the
 * channel's ring (as large as its queue): a consumer already reading, so
 * the storm's records go straight into the ring.
 */
static void mode_drainb(unsigned long n, bool unread)
{
	static struct ibasync_event ev[CHAN_BATCH];
	struct ibv_context *ctx = open_ctx();
	struct ibasync_channel *ch;
	unsigned long got = 0, calls = 0, io0, io1;
	unsigned long long lost = 0;
	uint64_t t0, t1;
	int k, i;

	quiesce(ctx);
	ch = chan_open(ctx, 0, (unsigned int)n + 1024);
	chan_sub(ch, 0, 1);
	if (ibasync_get_events(ch, ev, CHAN_BATCH, IBASYNC_GET_NONBLOCK) < 0 &&
	    errno != EAGAIN)
		die("ibasync_get_events before the storm");
	storm(n);
	io0 = ioctls();
	t0 = now_ns();
	while (got < n) {
		k = ibasync_get_events(ch, ev, CHAN_BATCH,
				       IBASYNC_GET_NONBLOCK);
		if (k < 0) {
			if (errno == EAGAIN)
				break;
			die("ibasync_get_events");
		}
		calls++;
		if (unread) {
			got += (unsigned long)k;
			continue;
		}
		for (i = 0; i < k; i++) {
			if (ev[i].kind == IBASYNC_EVENT_OVERFLOW)
				lost += ev[i].lost;
			else if (ev[i].event_type == STORM_TYPE)
				got += ev[i].occurrences;
		}
	}
	t1 = now_ns();
	io1 = ioctls();
	printf("side=%s mode=%s n=%lu got=%lu lost=%llu qlen=%u ns=%llu "
	       "evps=%.0f calls=%lu calls_per_ev=%.4f ioctls=%lu "
	       "ioctls_per_ev=%.4f\n",
	       BENCH_SIDE, unread ? "drainb_unread" : "drainb", n, got, lost,
	       chan_qlen(ch),
	       (unsigned long long)(t1 - t0),
	       (double)got * 1e9 / (double)(t1 - t0), calls,
	       got ? (double)calls / (double)got : 0.0, io1 - io0,
	       got ? (double)(io1 - io0) / (double)got : 0.0);
	ibasync_destroy_channel(ch);
	ibv_close_device(ctx);
}

/*
 * Where the time of the ibv_get_async_event + ibv_ack_async_event drain
 * goes. A clock read around every call would cost as much as the calls
 * (clock_gettime, measured here: tens of ns through the vDSO, a system
 * call where the clocksource is the emulated HPET), so every figure times
 * a whole loop: the drain itself (as mode_drain: the shim takes records
 * from the ring it mapped as large as the queue); then, on a ring this
 * program maps on a node file of its own, taking records by hand as the
 * shim does (type and element read in place, consumer store) from a ring
 * as large as the queue, over a second storm of n: what a record costs in
 * userspace before the shim's own work; the same from a ring of 64 behind
 * the queue, over a third: one RING_WAIT per 64 records moves them from
 * the queue; ibv_ack_async_event of a port event alone; an uncontended
 * mutex lock + unlock pair (the shim takes its event lock once per
 * ibv_get_async_event in a process of several threads); a trivial system
 * call (getppid); and one clock read.
 */
struct raw_ring {
	int fd;
	struct ib_async_ring_header *h;
	const unsigned char *recs;
	uint32_t mask, rec_size;
	size_t len;
};

/* The node of ibdev_name, opened anew: queue @qlen, a ring of @entries. */
static void raw_ring_open(struct raw_ring *r, unsigned int qlen,
			  unsigned int entries)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ib_async_queue_len q = { .argsz = sizeof(q), .queue_len = qlen };
	struct ib_async_map_ring m = { .argsz = sizeof(m), .entries = entries };
	char path[256] = "";
	void *p;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ibdev_name))
			snprintf(path, sizeof(path), "/dev/infiniband/%s",
				 list[i]->dev_name);
	ibv_free_device_list(list);
	r->fd = path[0] ? open(path, O_RDWR | O_CLOEXEC) : -1;
	if (r->fd < 0)
		die("open the ib_async node");
	if (ioctl(r->fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &q))
		die("IB_ASYNC_IOC_SET_QUEUE_LEN");
	if (ioctl(r->fd, IB_ASYNC_IOC_MAP_RING, &m))
		die("IB_ASYNC_IOC_MAP_RING");
	r->len = (size_t)m.mmap_size;
	p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 (off_t)m.mmap_offset);
	if (p == MAP_FAILED)
		die("mmap the ring");
	r->h = p;
	r->recs = (const unsigned char *)p + r->h->records_offset;
	r->mask = r->h->entries - 1;
	r->rec_size = r->h->record_size;
}

static void raw_ring_close(struct raw_ring *r)
{
	munmap(r->h, r->len);
	close(r->fd);
}

/* Where the elements read go, so that the reads are made. */
static volatile uint64_t raw_ring_sink;

/*
 * A storm of n, then records taken one by one until n storm records were
 * seen, as the shim takes them: the two fields ibv_get_async_event()
 * returns read in place, then the consumer store; a RING_WAIT whenever the
 * ring is empty. Returns ns per record;
 * *@waits: RING_WAIT calls.
 */
static double raw_ring_loop(struct raw_ring *r, unsigned long n,
			    unsigned long *waits)
{
	const struct ib_async_event *rec;
	unsigned long recs = 0, storm_recs = 0;
	uint64_t elements = 0;
	uint32_t cons = r->h->consumer, prod, type;
	uint64_t t0, t1;

	*waits = 0;
	storm(n);
	t0 = now_ns();
	while (storm_recs < n) {
		prod = __atomic_load_n(&r->h->producer, __ATOMIC_ACQUIRE);
		if (prod == cons) {
			struct ib_async_ring_wait w = {
				.argsz = sizeof(w),
				.flags = IB_ASYNC_READ_NONBLOCK,
			};

			++*waits;
			if (ioctl(r->fd, IB_ASYNC_IOC_RING_WAIT, &w)) {
				if (errno == EAGAIN)
					break;	/* fewer than n: lost */
				die("IB_ASYNC_IOC_RING_WAIT");
			}
			continue;
		}
		rec = (const void *)(r->recs +
				     (size_t)(cons & r->mask) * r->rec_size);
		type = rec->event_type;
		elements += rec->element;
		__atomic_store_n(&r->h->consumer, ++cons, __ATOMIC_RELEASE);
		recs++;
		storm_recs += type == STORM_TYPE;
	}
	t1 = now_ns();
	raw_ring_sink = elements;
	return recs ? (double)(t1 - t0) / (double)recs : 0.0;
}

static void mode_drainprof(unsigned long n)
{
	struct ibv_async_event port_ev = {
		.event_type = STORM_TYPE, .element.port_num = STORM_PORT,
	};
	struct ibv_context *ctx;
	struct raw_ring ring;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	double clk, mtx, sys, ack, loop, take, small;
	unsigned long got = 0, i, k = 1000000, take_waits, small_waits;
	char cs[64] = "?";
	uint64_t t0, t1;
	FILE *f;

	f = fopen("/sys/devices/system/clocksource/clocksource0/"
		  "current_clocksource", "r");
	if (f) {
		if (fscanf(f, "%63s", cs) != 1)
			strcpy(cs, "?");
		fclose(f);
	}
	t0 = now_ns();
	for (i = 0; i < k / 100; i++)
		(void)now_ns();
	clk = (double)(now_ns() - t0) / (double)(k / 100);
	t0 = now_ns();
	for (i = 0; i < k; i++) {
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
	}
	mtx = (double)(now_ns() - t0) / (double)k;
	t0 = now_ns();
	for (i = 0; i < k / 100; i++)
		(void)syscall(SYS_getppid);
	sys = (double)(now_ns() - t0) / (double)(k / 100);
	t0 = now_ns();
	for (i = 0; i < k; i++)
		ibv_ack_async_event(&port_ev);
	ack = (double)(now_ns() - t0) / (double)k;

	ctx = open_ctx();
	quiesce(ctx);
	storm(n);
	t0 = now_ns();
	while (got < n) {
		int r = get_one(ctx);

		if (r < 0) {
			if (errno == EAGAIN)
				break;
			die("ibv_get_async_event");
		}
		got += (unsigned long)r;
	}
	t1 = now_ns();
	loop = (double)(t1 - t0) / (double)(got ? got : 1);
	/* its queue would take the next storms too */
	ibv_close_device(ctx);
	raw_ring_open(&ring, (unsigned int)n + 1024, (unsigned int)n + 1024);
	take = raw_ring_loop(&ring, n, &take_waits);
	raw_ring_close(&ring);
	raw_ring_open(&ring, (unsigned int)n + 1024, CHAN_BATCH);
	small = raw_ring_loop(&ring, n, &small_waits);
	raw_ring_close(&ring);
	printf("side=%s mode=drainprof n=%lu got=%lu clocksource=%s "
	       "clk_ns=%.1f mutex_ns=%.1f syscall_ns=%.1f ack_ns=%.1f "
	       "loop_ns=%.1f take_rec_ns=%.1f take_waits=%lu "
	       "ring64_rec_ns=%.1f ring64_waits_per_rec=%.4f "
	       "wait_call_ns=%.1f\n",
	       BENCH_SIDE, n, got, cs, clk, mtx, sys, ack, loop, take,
	       take_waits, small, (double)small_waits / (double)n,
	       small_waits ? (small - take) * (double)n /
			     (double)small_waits : 0.0);
}

/*
 * A reader that does not read, on a coalescing event channel subscribed
 * to SM_CHANGE (default queue length), during a storm of n: kernel memory
 * growth (Slab + VmallocUsed, as mode_stall) from after the channel was
 * made to the end of the storm; then the channel is read: exact when it
 * holds one record whose occurrences are n and no overflow. The
 * context's own queue (IBASYNC_QUEUE_LEN) also receives the storm:
 * delivered + lost must be n there as well.
 */
static void mode_coalesce(unsigned long n)
{
	static struct ibasync_event ev[CHAN_BATCH];
	struct meminfo m0, m1, m2;
	struct ibv_context *ctx;
	struct ibasync_channel *ch;
	unsigned long long occ = 0, lost = 0;
	unsigned long recs = 0, ctx_got;
	unsigned int qlen;
	int k, i;

	read_meminfo(&m0);
	ctx = open_ctx();
	quiesce(ctx);
	ch = chan_open(ctx, IBASYNC_CHANNEL_COALESCE, 0);
	chan_sub(ch, IBASYNC_EVENT_TYPE_BIT(STORM_TYPE), 1);
	read_meminfo(&m1);
	storm(n);		/* nothing is read */
	read_meminfo(&m2);
	while ((k = ibasync_get_events(ch, ev, CHAN_BATCH,
				       IBASYNC_GET_NONBLOCK)) > 0) {
		for (i = 0; i < k; i++) {
			recs++;
			if (ev[i].kind == IBASYNC_EVENT_OVERFLOW)
				lost += ev[i].lost;
			else if (ev[i].event_type == STORM_TYPE)
				occ += ev[i].occurrences;
		}
	}
	if (errno != EAGAIN)
		die("ibasync_get_events");
	qlen = chan_qlen(ch);
	ctx_got = drain_nonblock(ctx);
	printf("side=%s mode=coalesce n=%lu records=%lu occurrences=%llu "
	       "lost=%llu chan_qlen=%u open_kb=%lld growth_kb=%lld "
	       "slab_kb=%lld vmalloc_kb=%lld ctx_got=%lu ctx_lost=%llu "
	       "exact=%d\n",
	       BENCH_SIDE, n, recs, occ, lost, qlen, mem_kb(&m0, &m1),
	       mem_kb(&m1, &m2), m2.slab - m1.slab, m2.vmalloc - m1.vmalloc,
	       ctx_got, lost_events(ctx),
	       recs == 1 && occ == n && !lost &&
	       ctx_got + lost_events(ctx) == n);
	ibasync_destroy_channel(ch);
	ibv_close_device(ctx);
}
#endif /* BENCH_IBASYNC */

/* ---- filtered fan-out --------------------------------------------------- */

/*
 * n events, half of type A and half of type B, dispatched in alternating
 * writes of FFAN_CHUNK events of each type (one port: rxe has one, so
 * the filter is the event type).
 */
struct ffan_storm {
	const char *ta, *tb;
	unsigned long half;
	uint64_t t_start, t_end;
};

static void ffan_dispatch(struct ffan_storm *a)
{
	unsigned long sent = 0, k;

	while (sent < a->half) {
		k = a->half - sent < FFAN_CHUNK ? a->half - sent : FFAN_CHUNK;
		storm_type(a->ta, k);
		storm_type(a->tb, k);
		sent += k;
	}
}

static void *ffan_thread(void *p)
{
	struct ffan_storm *a = p;

	a->t_start = now_ns();
	ffan_dispatch(a);
	a->t_end = now_ns();
	return NULL;
}

struct ffan_ctx {
	struct ibv_context *ctx;
#ifdef BENCH_IBASYNC
	struct ibasync_channel *ch;
#endif
	int fd;				/* what the epoll set watches */
	enum ibv_event_type want;
	unsigned long got;		/* events of its type */
	unsigned long other;		/* events read and discarded */
	unsigned long long lost;	/* ib_async: overflow */
};

/* Read @f until EAGAIN, counting its type's events and the others. */
static void ffan_read(struct ffan_ctx *f)
{
#ifdef BENCH_IBASYNC
	struct ibasync_event ev[CHAN_BATCH];
	int k, i;

	while ((k = ibasync_get_events(f->ch, ev, CHAN_BATCH,
				       IBASYNC_GET_NONBLOCK)) > 0) {
		for (i = 0; i < k; i++) {
			if (ev[i].kind == IBASYNC_EVENT_OVERFLOW)
				f->lost += ev[i].lost;
			else if (ev[i].event_type == f->want)
				f->got += ev[i].occurrences;
			else
				f->other++;
		}
	}
	if (errno != EAGAIN)
		die("ibasync_get_events");
#else
	struct ibv_async_event ev;

	while (!ibv_get_async_event(f->ctx, &ev)) {
		if (ev.event_type == f->want)
			f->got++;
		else
			f->other++;	/* filtered out here, in userspace */
		ibv_ack_async_event(&ev);
	}
	if (errno != EAGAIN)
		die("ibv_get_async_event");
#endif
}

/*
 * C contexts, context i interested in type A (i even) or B (i odd). On
 * ib_async each has an event channel subscribed to its type (queue
 * CHANQ, by default n/2 + 1024: the whole share, nothing lost) and only
 * the channels are read; the contexts' own queues (IBASYNC_QUEUE_LEN,
 * small) still receive every event and overflow, unread. On ib_uverbs
 * every context reads every event and drops the other type. Phase 1: one
 * epoll loop reads while a second thread dispatches; wall time until
 * every context has its n/2 events (or, on a channel too short to keep
 * up, has them or their overflow records), kernel CPU as in mode_fanout.
 * Phase 2: the same storm with nobody reading: kernel memory growth (as
 * mode_stall), then everything is read and counted again. complete and
 * complete2: in each phase, delivered + lost was every context's share
 * (lost and lost2: how many were lost, all contexts). Also the memory
 * the setup took (open_kb). C = 0: the storm alone (side none), the cost every storm has.
 */
static void mode_ffan(unsigned long n, int nctx, const char *ta,
		      const char *tb, unsigned int chanq)
{
	static struct ffan_ctx f[MAX_CTX];
	struct epoll_event evs[64];
	struct ffan_storm sa = { .ta = ta, .tb = tb, .half = n / 2 };
	struct meminfo m0, m1, m2, m3;
	struct rusage ru0, ru1;
	unsigned long long lost = 0, lost2 = 0;
	unsigned long other = 0, bad = 0;
	long long st0, st1;
	int ep, i, done = 0, complete2 = 1;
	pthread_t thr;
	uint64_t t_done;

	if (nctx < 0 || nctx > MAX_CTX || n < 2)
		fail("ffan: N >= 2 events, 0..1024 contexts");
	storm_type_of(ta);
	storm_type_of(tb);
	storm_fd = open(STORM_FILE, O_WRONLY | O_CLOEXEC);
	if (storm_fd < 0)
		die(STORM_FILE);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	read_meminfo(&m0);
	for (i = 0; i < nctx; i++) {
		struct epoll_event e = { .events = EPOLLIN, .data.u32 = i };

		f[i].ctx = open_ctx();
		f[i].want = storm_type_of(i % 2 ? tb : ta);
		quiesce(f[i].ctx);
#ifdef BENCH_IBASYNC
		f[i].ch = chan_open(f[i].ctx, 0,
				    chanq ? chanq : (unsigned int)(n / 2) + 1024);
		chan_sub(f[i].ch, IBASYNC_EVENT_TYPE_BIT(f[i].want),
			 (uint64_t)i + 1);
		f[i].fd = ibasync_channel_fd(f[i].ch);
#else
		f[i].fd = f[i].ctx->async_fd;
#endif
		if (epoll_ctl(ep, EPOLL_CTL_ADD, f[i].fd, &e))
			die("epoll_ctl");
	}
	read_meminfo(&m1);

	/* phase 1: readers keep up */
	getrusage(RUSAGE_SELF, &ru0);
	st0 = read_stat_sys();
	if (pthread_create(&thr, NULL, ffan_thread, &sa))
		fail("pthread_create");
	while (done < nctx) {
		int k = wait_ready(ep, evs, 64);

		if (k == 0)
			break;	/* 10 s without an event: events lost */
		for (i = 0; i < k; i++) {
			struct ffan_ctx *c = &f[evs[i].data.u32];
			/* a bounded channel may lose: its overflow says how many */
			int was_done = c->got + c->lost >= sa.half;

			ffan_read(c);
			if (!was_done && c->got + c->lost >= sa.half)
				done++;
		}
	}
	t_done = now_ns();
	pthread_join(thr, NULL);
	st1 = read_stat_sys();
	getrusage(RUSAGE_SELF, &ru1);
	for (i = 0; i < nctx; i++) {
		ffan_read(&f[i]);	/* stragglers: none expected */
		if (f[i].got + f[i].lost != sa.half)
			bad++;
		other += f[i].other;
		lost += f[i].lost;
		f[i].got = 0;
		f[i].lost = 0;
	}

	/* phase 2: nobody reads during the storm */
	read_meminfo(&m2);
	ffan_dispatch(&sa);
	read_meminfo(&m3);
	for (i = 0; i < nctx; i++) {
		ffan_read(&f[i]);
		/* a bounded queue may lose, but must count what it lost */
		if (f[i].got + f[i].lost != sa.half)
			complete2 = 0;
		lost2 += f[i].lost;
	}
	for (i = 0; i < nctx; i++) {
#ifdef BENCH_IBASYNC
		ibasync_destroy_channel(f[i].ch);
#endif
		ibv_close_device(f[i].ctx);
	}
	close(ep);
	if (!nctx)	/* the storm alone: time it like phase 1 */
		t_done = sa.t_end;
	printf("side=%s mode=ffan n=%lu ctx=%d types=%s,%s chanq=%u complete=%d "
	       "complete2=%d lost=%llu lost2=%llu other_per_ctx=%.1f ms=%.2f "
	       "storm_ms=%.2f proc_sys_ms=%.2f proc_user_ms=%.2f sys_ms=%.2f "
	       "open_kb=%lld storm_kb=%lld\n",
	       nctx ? BENCH_SIDE : "none", n, nctx, ta, tb,
	       chanq ? chanq : (unsigned int)(n / 2) + 1024,
	       done == nctx && !bad, complete2, lost, lost2,
	       nctx ? (double)other / nctx : 0.0,
	       (double)(t_done - sa.t_start) / 1e6,
	       (double)(sa.t_end - sa.t_start) / 1e6,
	       (double)(tv_ns(&ru1.ru_stime) - tv_ns(&ru0.ru_stime)) / 1e6,
	       (double)(tv_ns(&ru1.ru_utime) - tv_ns(&ru0.ru_utime)) / 1e6,
	       ticks_to_ms(st1 - st0), mem_kb(&m0, &m1), mem_kb(&m2, &m3));
}

/* The storm of @n events of one type with nobody reading: its cost. */
static void mode_stormcost(const char *type, unsigned long n)
{
	struct rusage ru0, ru1;
	long long st0, st1;
	uint64_t t0, t1;

	storm_type_of(type);
	storm_type(type, 1);	/* opens the file */
	getrusage(RUSAGE_SELF, &ru0);
	st0 = read_stat_sys();
	t0 = now_ns();
	storm_type(type, n);
	t1 = now_ns();
	st1 = read_stat_sys();
	getrusage(RUSAGE_SELF, &ru1);
	printf("side=none mode=stormcost type=%s n=%lu ms=%.2f us_per_ev=%.2f "
	       "proc_sys_ms=%.2f sys_ms=%.2f\n", type, n,
	       (double)(t1 - t0) / 1e6, (double)(t1 - t0) / 1e3 / (double)n,
	       (double)(tv_ns(&ru1.ru_stime) - tv_ns(&ru0.ru_stime)) / 1e6,
	       ticks_to_ms(st1 - st0));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ibbench-{uverbs,ibasync} [-d ibdev] stall N | idle N |\n"
		"       drain N |\n"
		"       fanout N CONTEXTS | latency K blocking|epoll |\n"
		"       destroy N | complat K | compflood NCQS ROUNDS | dpprof K |\n"
		"       rateprof M N | recvprof D N |\n"
		"       ffan N CONTEXTS TYPEA TYPEB [CHANQ] | stormcost TYPE N |\n"
		"       drainb N | drainprof N | coalesce N (ib_async only)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "-d")) {
		ibdev_name = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 3)
		usage();
	mode = argv[1];
	if (!strcmp(mode, "stall"))
		mode_stall(strtoul(argv[2], NULL, 0));
	else if (!strcmp(mode, "idle"))
		mode_idle(strtoul(argv[2], NULL, 0));
	else if (!strcmp(mode, "drain"))
		mode_drain(strtoul(argv[2], NULL, 0));
	else if (!strcmp(mode, "fanout") && argc > 3)
		mode_fanout(strtoul(argv[2], NULL, 0), atoi(argv[3]));
	else if (!strcmp(mode, "destroy"))
		mode_destroy(strtoul(argv[2], NULL, 0));
	else if (!strcmp(mode, "complat"))
		mode_complat(atoi(argv[2]));
	else if (!strcmp(mode, "dpprof"))
		mode_dpprof(atoi(argv[2]));
	else if (!strcmp(mode, "rateprof") && argc >= 4)
		mode_rateprof(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "recvprof") && argc > 3)
		mode_recvprof(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "compflood") && argc > 3)
		mode_compflood(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "ffan") && argc > 5)
		mode_ffan(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv[4],
			  argv[5], argc > 6 ? (unsigned int)atoi(argv[6]) : 0);
	else if (!strcmp(mode, "stormcost") && argc > 3)
		mode_stormcost(argv[2], strtoul(argv[3], NULL, 0));
#ifdef BENCH_IBASYNC
	else if (!strcmp(mode, "drainb"))
		mode_drainb(strtoul(argv[2], NULL, 0),
			    argc > 3 && !strcmp(argv[3], "unread"));
	else if (!strcmp(mode, "drainprof"))
		mode_drainprof(strtoul(argv[2], NULL, 0));
	else if (!strcmp(mode, "coalesce"))
		mode_coalesce(strtoul(argv[2], NULL, 0));
#endif
	else if (!strcmp(mode, "latency") && argc > 3)
		mode_latency(atoi(argv[2]), !strcmp(argv[3], "epoll"));
	else
		usage();
	return 0;
}
