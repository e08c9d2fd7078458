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
 * ibv_open_device.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#ifdef BENCH_IBASYNC
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
	char line[256];
	FILE *f;

	slab_shrink();
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		long long v;
		char key[64];

		if (sscanf(line, "%63[^:]: %lld", key, &v) != 2)
			continue;
		if (!strcmp(key, "MemFree"))
			m->memfree = v;
		else if (!strcmp(key, "Slab"))
			m->slab = v;
		else if (!strcmp(key, "SUnreclaim"))
			m->sunreclaim = v;
		else if (!strcmp(key, "VmallocUsed"))
			m->vmalloc = v;
	}
	fclose(f);
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

static void storm(unsigned long n)
{
	char cmd[128];
	int len = snprintf(cmd, sizeof(cmd), "%s SM_CHANGE %d %lu", ibdev_name,
			   STORM_PORT, n);

	if (storm_fd < 0) {
		storm_fd = open(STORM_FILE, O_WRONLY | O_CLOEXEC);
		if (storm_fd < 0)
			die(STORM_FILE " (ib_async_storm.ko loaded?)");
	}
	if (write(storm_fd, cmd, (size_t)len) != len)
		die("storm write");
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
	unsigned int qlen;

	read_meminfo(&m0);
	ctx = open_ctx();
	quiesce(ctx);
	read_meminfo(&m1);
	storm(n);		/* reader stalled: nothing is read */
	read_meminfo(&m2);
	got = drain_nonblock(ctx);
	lost = lost_events(ctx);
	qlen = queue_len(ctx);
	ibv_close_device(ctx);
	printf("side=%s mode=stall n=%lu got=%lu lost=%llu qlen=%u "
	       "open_kb=%lld slab_kb=%lld sunreclaim_kb=%lld vmalloc_kb=%lld "
	       "memfree_drop_kb=%lld complete=%d\n",
	       BENCH_SIDE, n, got, lost, qlen, m0.memfree - m1.memfree,
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
	unsigned long got = 0;
	int r;

	quiesce(ctx);
	storm(n);
	r0 = read_syscr();
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
	r1 = read_syscr();
	printf("side=%s mode=drain n=%lu got=%lu lost=%llu qlen=%u "
	       "ns=%llu evps=%.0f reads=%lld reads_per_ev=%.4f\n",
	       BENCH_SIDE, n, got, lost_events(ctx), queue_len(ctx),
	       (unsigned long long)(t1 - t0),
	       (double)got * 1e9 / (double)(t1 - t0), r1 - r0 - 1,
	       got ? (double)(r1 - r0 - 1) / (double)got : 0.0);
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
		int k = epoll_wait(ep, evs, 64, 10000);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die("epoll_wait");
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

/*
 * The index of the port's RoCE v2 IPv4-mapped GID, from sysfs (the same
 * for both stacks); the GID itself through ibv_query_gid().
 */
static int roce_v2_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	char path[256], buf[128];
	int i;

	for (i = 0; i < 256; i++) {
		FILE *f;
		int ok;

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			 ibdev_name, i);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fgets(buf, sizeof(buf), f) && !strncmp(buf, "RoCE v2", 7);
		fclose(f);
		if (!ok || ibv_query_gid(ctx, 1, i, gid))
			continue;
		/* ::ffff:a.b.c.d */
		if (!gid->global.subnet_prefix &&
		    !memcmp(&gid->raw[8], "\0\0\xff\xff", 4))
			return i;
	}
	fail("no RoCE v2 IPv4-mapped GID on port 1");
	return -1;
}

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
	b->sgid = roce_v2_gid(b->ctx, &b->gid);
}

/* A QP whose CQ reports to the channel when @armed, else is polled. */
static void end_make(struct comp_bed *b, struct rc_end *e, int armed)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 64, .max_recv_wr = 2 * COMP_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = (COMP_RECVS + 1) * COMP_MSG;

	e->cq = ibv_create_cq(b->ctx, 2 * (64 + COMP_RECVS), e,
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
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify INIT");
}

/* Walk @qp from INIT to RTS, connected to @dqpn on this port's GID. */
static void rc_connect(struct comp_bed *b, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = b->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)b->sgid;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RTS");
}

/* Two ends connected to each other, every receive posted. */
static void pair_make(struct comp_bed *b, struct rc_end *s, int s_armed,
		      struct rc_end *r, int r_armed)
{
	unsigned int i;

	end_make(b, s, s_armed);
	end_make(b, r, r_armed);
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
	char path[64], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", chan->fd);
	f = fopen(path, "r");
	if (!f)
		die("fdinfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ib_async-lost: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
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

static void usage(void)
{
	fprintf(stderr,
		"usage: ibbench-{uverbs,ibasync} [-d ibdev] stall N | idle N |\n"
		"       drain N |\n"
		"       fanout N CONTEXTS | latency K blocking|epoll |\n"
		"       destroy N | complat K | compflood NCQS ROUNDS\n");
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
	else if (!strcmp(mode, "compflood") && argc > 3)
		mode_compflood(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(mode, "latency") && argc > 3)
		mode_latency(atoi(argv[2]), !strcmp(argv[3], "epoll"));
	else
		usage();
	return 0;
}
