// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_fuzz: the supervisor. Runs the calls in batches and, after
 * each, reads the kernel log through /dev/kmsg with the patterns of
 * scripts/guest/check-log.sh (BUG, WARNING, Oops, KASAN, lockdep,
 * refcount, list corruption, hung task...).
 *
 *   ib_async_fuzz                  the quick form for the kselftest suite:
 *                                  the regression batches (regress[]), then
 *                                  seed 1, 300,000 calls (20,000 on a KASAN
 *                                  kernel), rxe0 and evsrc0 (loaded for the
 *                                  run if need be), the test bed kept, TAP
 *   ib_async_fuzz --calls N --seed S [--env] [--batch B] [--procs P]
 *                 [--threads T] [--batch-timeout SECS] [--verbose]
 *                 [--trace FILE]
 *
 * A batch of B calls runs in a fresh process tree: one process opens the
 * files (two on rxe0, one on evsrc0) and forks P-1 siblings sharing them;
 * each process runs T worker threads. Batch b uses the seed S + 1000 * b
 * and worker w of it S + 1000 * b + w + 1, so a report's seed, given as
 * --seed with --calls B, replays its batch first. With --env the batch
 * seed also picks what happens to the test bed before and during the
 * batch: ib_async reloaded with other queue lengths, rxe0 deleted and
 * added again (with the files open or not), evsrc0 unregistered, declared
 * fatal or its module removed, rmmod of ib_async while files are open, a
 * link flap, a GID change. What happens during the batch starts once the
 * workers made a seeded number of its calls.
 *
 * The last line is "fuzz: N calls, R reports"; the exit status is 1 when
 * R > 0 (TAP form: "ok 1"/"not ok 1"; 4 when there is no device).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fuzz.h"
#include "lib/iba_testbed.h"
#include "fuzz_log_pattern.h"

#define KO_DIR		"/usr/lib/ib_async"
#define IB_ASYNC_KO	KO_DIR "/ib_async.ko"
#define IBA_EVSRC_KO	KO_DIR "/test/ib_async_evsrc.ko"
#define STORM_KO	KO_DIR "/test/ib_async_storm.ko"
#define IBA_EVSRC_DIR	"/sys/kernel/debug/ib_async_evsrc"
#define STORM_FILE	"/sys/kernel/debug/ib_async_storm/dispatch"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define SEED_STRIDE	1000
/*
 * The quick form: about 30 s of guest time on Debian's kernel (some 10,000
 * calls a second on 2 TCG cores), and a tenth of the calls where KASAN
 * makes every call about 15 times slower.
 */
#define QUICK_CALLS		300000
#define QUICK_CALLS_KASAN	20000
#define QUICK_BATCH		5000
/*
 * A quick batch takes seconds (some 20 s with KASAN): a hung one is
 * reported, with its kernel stacks, well within the kselftest runner's
 * timeout (settings), which would otherwise kill the fuzzer first.
 */
#define QUICK_BATCH_TIMEOUT	180
/* a worker busy longer than this in one call gets SIGUSR1 */
#define UNSTICK_MS	100
/* ... and one still in the kernel after this is reported */
#define STUCK_MS	60000

struct opts {
	uint64_t calls;
	uint64_t seed;
	uint32_t batch;
	uint32_t procs;
	uint32_t threads;
	uint32_t batch_timeout;	/* seconds */
	bool env;
	bool tap;
	bool verbose;
};

static struct opts opt = {
	.calls = QUICK_CALLS, .seed = 1, .batch = QUICK_BATCH, .procs = 2,
	.threads = 2, .batch_timeout = 600,
};

static struct fz_shared *sh;
static uint64_t total_calls;
/* the batches' statistics, added up */
static struct fz_stats st;
static uint32_t total_reports;
static bool loaded_evsrc, loaded_storm;

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Every line goes out whole, "# "-prefixed in the TAP form. */
static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	printf("%s%s\n", opt.tap ? "# " : "", buf);
	fflush(stdout);
}

/* ---- reports, de-duplicated over the run ---- */

struct seen {
	char *key;
	uint32_t report;	/* its number */
	uint32_t times;
};

static struct seen *seen;
static uint32_t nseen;

/*
 * Each report's first line, said again at the end of the run: the tail of
 * a long log (all a CI summary may keep) then still tells what broke.
 */
#define HEADLINES_KEEP	32
static char *headlines[HEADLINES_KEEP];

/*
 * True the first time @key is seen in this run; afterwards only counted
 * (and said, the first few times, with the seed of the batch).
 */
static bool first_time(const char *key, uint64_t seed)
{
	uint32_t i;

	for (i = 0; i < nseen; i++) {
		if (strcmp(seen[i].key, key))
			continue;
		if (++seen[i].times <= 3)
			say("fuzz: report %u again (seed %" PRIu64 ")",
			    seen[i].report, seed);
		return false;
	}
	seen = realloc(seen, (nseen + 1) * sizeof(*seen));
	seen[nseen].key = strdup(key);
	seen[nseen].report = total_reports + 1;
	seen[nseen++].times = 1;
	return true;
}

/* Every member of struct fz_stats is a counter of one type: add them all. */
_Static_assert(sizeof(struct fz_stats) % sizeof(atomic_ullong) == 0,
	       "struct fz_stats holds something other than atomic_ullong");

static void stats_add(struct fz_stats *to, struct fz_stats *from)
{
	atomic_ullong *t = (atomic_ullong *)to, *f = (atomic_ullong *)from;
	size_t i;

	for (i = 0; i < sizeof(*to) / sizeof(*t); i++)
		atomic_fetch_add(&t[i], atomic_load(&f[i]));
}

/* What the run reached: ioctls made and succeeded, records, completions. */
static void say_stats(void)
{
	char line[1024];
	size_t o = 0;
	uint32_t i;

	for (i = 0; i < fz_ncmds; i++) {
		o += snprintf(line + o, sizeof(line) - o, " %s %llu/%llu",
			      fz_cmds[i].name, (unsigned long long)st.cmd_ok[i],
			      (unsigned long long)st.cmd_calls[i]);
		if (o > 100 || i + 1 == fz_ncmds) {
			say("fuzz: ok/calls:%s", line);
			o = 0;
		}
	}
	for (i = 0; i < 21; i++)
		o += snprintf(line + o, sizeof(line) - o, " %s%llu",
			      i == 20 ? "overflow:" : "", (unsigned long long)st.events[i]);
	say("fuzz: records read by type 0..19:%s", line);
	say("fuzz: completions polled: %llu ok, %llu with an error status; "
	    "%llu faults answered late", (unsigned long long)st.wc_ok,
	    (unsigned long long)st.wc_err, (unsigned long long)st.slow_faults);
	say("fuzz: event channels read with the sequence verdict: %llu reads, "
	    "%llu records, %llu losses counted, %llu drains checked against "
	    "GET_INFO's lost; state recipe snapshots: %llu asked, %llu EBUSY",
	    (unsigned long long)st.chan_reads, (unsigned long long)st.chan_recs,
	    (unsigned long long)st.chan_lost, (unsigned long long)st.chan_drains,
	    (unsigned long long)st.snap_calls, (unsigned long long)st.snap_busy);
	say("fuzz: completion rings: %llu mapped, %llu unmapped, %llu tails "
	    "unmapped, %llu moved, %llu mapped again; consumer pages written "
	    "ahead %llu, behind %llu, anything %llu, consuming %llu, garbage "
	    "%llu; %llu looks (%llu at a destroyed CQ's), %llu records checked, "
	    "%llu completions seen "
	    "published; CQ_WAIT %llu FULL, %llu POLL; ring recipe %llu runs, "
	    "%llu by its scribbler",
	    (unsigned long long)st.ring_maps, (unsigned long long)st.ring_unmaps,
	    (unsigned long long)st.ring_tails, (unsigned long long)st.ring_moves,
	    (unsigned long long)st.ring_remaps,
	    (unsigned long long)st.ring_writes[FZ_RW_AHEAD],
	    (unsigned long long)st.ring_writes[FZ_RW_BEHIND],
	    (unsigned long long)st.ring_writes[FZ_RW_ANY],
	    (unsigned long long)st.ring_writes[FZ_RW_CONSUME],
	    (unsigned long long)st.ring_writes[FZ_RW_PAGE],
	    (unsigned long long)st.ring_looks,
	    (unsigned long long)st.ring_dead_looks,
	    (unsigned long long)st.ring_recs,
	    (unsigned long long)st.ring_published,
	    (unsigned long long)st.ring_full, (unsigned long long)st.ring_poll,
	    (unsigned long long)st.ring_recipes,
	    (unsigned long long)st.ring_scribbles);
}

static void say_repeats(void)
{
	uint32_t i;

	for (i = 0; i < nseen; i++)
		if (seen[i].times > 1)
			say("fuzz: report %u seen %u times", seen[i].report,
			    seen[i].times);
	for (i = 0; i < total_reports && i < HEADLINES_KEEP; i++)
		say("fuzz: report %u was: %s", i + 1, headlines[i]);
}

/* Count a new report and say it; its line is kept for the end. */
static __attribute__((format(printf, 1, 2)))
void new_report(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (total_reports < HEADLINES_KEEP)
		headlines[total_reports] = strdup(buf);
	total_reports++;
	say("fuzz: REPORT %u: %s", total_reports, buf);
}

/* A report of the supervisor's own, for the batch of @seed. */
static __attribute__((format(printf, 3, 4)))
void report(uint64_t seed, const char *key, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!first_time(key, seed))
		return;
	new_report("seed %" PRIu64 ": %s", seed, buf);
}

static void collect_worker_reports(uint64_t seed)
{
	uint32_t i;

	for (i = 0; i < sh->nreports && i < FZ_MAX_REPORTS; i++)
		report(seed, sh->report[i].key, "%s", sh->report[i].text);
	if (sh->nreports > FZ_MAX_REPORTS)
		say("fuzz: %u more worker reports in this batch not shown",
		    sh->nreports - FZ_MAX_REPORTS);
}

/* ---- the kernel log ---- */

static int kmsg_fd = -1;
static regex_t log_re;

#define KMSG_KEEP	4000

static char *klines[KMSG_KEEP];
static uint32_t nklines;

static void kmsg_open(void)
{
	if (regcomp(&log_re, FZ_LOG_PATTERN, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "fuzz: bad log pattern\n");
		exit(2);
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd < 0) {
		say("fuzz: /dev/kmsg: %s: the kernel log is not checked here",
		    strerror(errno));
		return;
	}
	lseek(kmsg_fd, 0, SEEK_END);
}

/* Read what the kernel logged since the last call, as dmesg shows it. */
static void kmsg_read(void)
{
	char rec[8192], *msg, *nl;
	unsigned long long ts;
	unsigned int pri;
	uint64_t seq;
	char line[1024];
	ssize_t n;

	while (nklines)
		free(klines[--nklines]);
	if (kmsg_fd < 0)
		return;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			snprintf(line, sizeof(line),
				 "(kernel log records overwritten before they were read)");
			goto keep;
		}
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg || sscanf(rec, "%u,%" SCNu64 ",%llu", &pri, &seq,
				   &ts) != 3)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		snprintf(line, sizeof(line), "[%5llu.%06llu] %s",
			 ts / 1000000, ts % 1000000, msg);
keep:
		if (nklines < KMSG_KEEP)
			klines[nklines++] = strdup(line);
	}
}

/* What identifies a kernel report: its line, numbers left out. */
static void signature(const char *line, char *key, size_t len)
{
	const char *p = strchr(line, ']');
	bool num = false, digit, hex;
	size_t o = 0;

	for (p = p ? p + 1 : line; *p == ' '; p++)
		;
	for (; *p && o + 1 < len; p++) {
		digit = *p >= '0' && *p <= '9';
		hex = num && ((*p >= 'a' && *p <= 'f') || *p == 'x');
		if (digit || hex) {
			if (!num)
				key[o++] = '#';
			num = true;
			continue;
		}
		num = false;
		key[o++] = *p;
	}
	key[o] = 0;
}

static void dump_kmemleak(void)
{
	char line[512];
	FILE *f = fopen(KMEMLEAK, "re");
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n++ < 60) {
		line[strcspn(line, "\n")] = 0;
		say("fuzz:   | %s", line);
	}
	fclose(f);
}

/* Every kernel report in the log since the last batch. */
static void kmsg_check(uint64_t seed)
{
	uint32_t i, j, last = 0;
	char key[160];

	kmsg_read();
	for (i = 0; i < nklines; i++) {
		if (i < last || regexec(&log_re, klines[i], 0, NULL, 0))
			continue;
		signature(klines[i], key, sizeof(key));
		if (!first_time(key, seed))
			continue;
		new_report("seed %" PRIu64 ": kernel log: %s", seed,
			   klines[i]);
		j = i > 3 ? i - 3 : 0;
		last = i + 40 < nklines ? i + 40 : nklines;
		for (; j < last; j++)
			say("fuzz:   | %s", klines[j]);
		if (strstr(klines[i], "memory leak"))
			dump_kmemleak();
	}
}

/* ---- the test bed ---- */

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Run a shell command, giving up on it after @secs (a removal that never
 * returns is a finding, not a reason to stop). Returns its exit status,
 * or -1 if it did not finish.
 */
static __attribute__((format(printf, 3, 4)))
int run(uint64_t seed, unsigned int secs, const char *fmt, ...)
{
	uint64_t end = fz_now_ms() + secs * 1000ULL;
	char cmd[512];
	int status;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (!opt.verbose && null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (fz_now_ms() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		sleep_ms(20);
	}
	kill(pid, SIGKILL);
	report(seed, cmd, "'%s' did not return within %u s", cmd, secs);
	return -1;
}

/*
 * Registering evsrc0 runs every client's add, ib_async's among them: one
 * that never returns is a report, not a fuzzer stuck in the write.
 */
static void add_evsrc0(uint64_t seed)
{
	run(seed, 60, "echo evsrc0 > %s/add", IBA_EVSRC_DIR);
}

static bool wait_until(bool (*cond)(void), unsigned int secs)
{
	uint64_t end = fz_now_ms() + secs * 1000ULL;

	while (!cond()) {
		if (fz_now_ms() > end)
			return false;
		sleep_ms(100);
	}
	return true;
}

/* The ib_async node of @ibdev, or false. */
static bool node_of(const char *ibdev, char *node, size_t len)
{
	char path[300], name[64];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/class/ib_async");

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "ib_async", 8))
			continue;
		snprintf(path, sizeof(path), "/sys/class/ib_async/%s/ibdev",
			 de->d_name);
		if (iba_read_line(path, name, sizeof(name)) || strcmp(name, ibdev))
			continue;
		snprintf(node, len, "/dev/infiniband/%.40s", de->d_name);
		found = exists(node);
	}
	closedir(d);
	return found;
}

static uint32_t port_count(const char *ibdev)
{
	char path[256];
	uint32_t n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u",
			 ibdev, n + 1);
		if (!exists(path))
			return n ? n : 1;
		n++;
	}
}

static bool rxe_ready(void)
{
	char node[64], state[32];
	uint8_t gid[16];

	return node_of("rxe0", node, sizeof(node)) &&
	       !iba_read_line("/sys/class/infiniband/rxe0/ports/1/state", state,
			  sizeof(state)) &&
	       !strcmp(state, "4: ACTIVE") && iba_roce_v2_gid("rxe0", gid) >= 0;
}

static bool evsrc_ready(void)
{
	char node[64];

	return node_of("evsrc0", node, sizeof(node));
}

static bool evsrc_gone(void)
{
	return !exists(IBA_EVSRC_DIR "/evsrc0");
}

static bool ib_async_ready(void)
{
	return exists("/sys/class/ib_async");
}

static bool want_evsrc;
static bool evsrc_fatal;

/* Bring back whatever a batch took away. */
static void restore(uint64_t seed)
{
	if (!exists("/sys/module/ib_async")) {
		run(seed, 60, "insmod %s", IB_ASYNC_KO);
		wait_until(ib_async_ready, 10);
	}
	if (!exists("/sys/class/net/veth0"))
		run(seed, 60, "ip link add veth0 type veth peer name veth1 && "
		    "ip link set veth0 up && ip addr add 10.11.0.1/24 dev veth0");
	run(seed, 30, "ip link set veth0 up; ip link set veth1 up");
	if (!exists("/sys/class/infiniband/rxe0"))
		run(seed, 60, "rdma link add rxe0 type rxe netdev veth0");
	if (!wait_until(rxe_ready, 30))
		report(seed, "rxe0-not-back", "rxe0 did not come back in 30 s");
	if (!want_evsrc)
		return;
	if (evsrc_fatal && exists(IBA_EVSRC_DIR "/evsrc0")) {
		write_file(IBA_EVSRC_DIR "/evsrc0/unregister", "1");
		wait_until(evsrc_gone, 30);
	}
	evsrc_fatal = false;
	if (!exists(IBA_EVSRC_DIR) && !run(seed, 60, "insmod %s", IBA_EVSRC_KO))
		loaded_evsrc = true;
	if (exists(IBA_EVSRC_DIR) && !exists(IBA_EVSRC_DIR "/evsrc0"))
		add_evsrc0(seed);
	if (!wait_until(evsrc_ready, 30))
		report(seed, "evsrc0-not-back",
		       "evsrc0 did not come back in 30 s");
}

/* The devices the batch uses, as they are now. */
static void discover(void)
{
	struct fz_dev *d;
	char buf[32];

	sh->ndev = 0;
	d = &sh->dev[sh->ndev];
	if (node_of("rxe0", d->node, sizeof(d->node))) {
		snprintf(d->ibdev, sizeof(d->ibdev), "rxe0");
		d->kind = FZ_DEV_RXE;
		d->ports = port_count("rxe0");
		d->gid_index = iba_roce_v2_gid("rxe0", d->gid);
		sh->ndev++;
	}
	d = &sh->dev[sh->ndev];
	if (want_evsrc && node_of("evsrc0", d->node, sizeof(d->node))) {
		snprintf(d->ibdev, sizeof(d->ibdev), "evsrc0");
		d->kind = FZ_DEV_EVSRC;
		d->ports = port_count("evsrc0");
		d->gid_index = -1;
		sh->ndev++;
	}
	sh->storm = !access(STORM_FILE, W_OK);
	sh->evsrc = want_evsrc && sh->ndev > 1;
	sh->rt = !iba_read_line("/sys/kernel/realtime", buf, sizeof(buf)) &&
		 buf[0] == '1';
	sh->max_queue_len = 65536;
	if (!iba_read_line("/sys/module/ib_async/parameters/max_queue_len", buf,
		       sizeof(buf)))
		sh->max_queue_len = strtoul(buf, NULL, 0);
}

/* ---- what happens to the test bed around a batch (--env) ---- */

static const char *pre_action(struct fz_rng *r, uint64_t seed)
{
	static const unsigned int qlens[] = { 1, 2, 4, 16, 64, 1024, 4096 };
	static const unsigned int maxes[] = { 16, 1024, 65536, 262144 };
	uint32_t p = fz_below(r, 100);
	char buf[32];

	if (p < 6) {
		/* every file is closed between batches: rmmod must work */
		if (run(seed, 120, "rmmod ib_async"))
			report(seed, "rmmod-failed",
			       "rmmod ib_async failed with no file open");
		run(seed, 60, "insmod %s default_queue_len=%u max_queue_len=%u",
		    IB_ASYNC_KO, qlens[fz_below(r, 7)], maxes[fz_below(r, 4)]);
		wait_until(ib_async_ready, 10);
		wait_until(rxe_ready, 20);
		wait_until(evsrc_ready, 20);
		return "reload";
	}
	if (p < 10) {
		run(seed, 120, "rdma link delete rxe0");
		run(seed, 60, "rdma link add rxe0 type rxe netdev veth0");
		wait_until(rxe_ready, 30);
		return "rxe-readd";
	}
	if (p < 13 && want_evsrc) {
		run(seed, 120, "rmmod ib_async_evsrc");
		run(seed, 60, "insmod %s", IBA_EVSRC_KO);
		wait_until(evsrc_ready, 30);
		return "evsrc-reload";
	}
	/* queue lengths for the files the batch opens */
	snprintf(buf, sizeof(buf), "%u", maxes[fz_below(r, 4)]);
	write_file("/sys/module/ib_async/parameters/max_queue_len", buf);
	snprintf(buf, sizeof(buf), "%u", qlens[fz_below(r, 7)]);
	write_file("/sys/module/ib_async/parameters/default_queue_len", buf);
	return "none";
}

enum mid {
	MID_NONE, MID_RXE_DELETE, MID_EVSRC_UNREGISTER, MID_EVSRC_FATAL,
	MID_EVSRC_RMMOD, MID_RMMOD_IB_ASYNC, MID_LINK_FLAP, MID_GID_CHANGE,
};

static const char *const mid_names[] = {
	"none", "rxe-delete", "evsrc-unregister", "evsrc-fatal",
	"evsrc-rmmod", "rmmod-ib_async", "link-flap", "gid-change",
};

static enum mid pick_mid(struct fz_rng *r)
{
	uint32_t p = fz_below(r, 100);

	if (p < 10)
		return MID_RXE_DELETE;
	if (p < 16)
		return want_evsrc ? MID_EVSRC_UNREGISTER : MID_LINK_FLAP;
	if (p < 19)
		return want_evsrc ? MID_EVSRC_FATAL : MID_NONE;
	if (p < 22)
		return want_evsrc ? MID_EVSRC_RMMOD : MID_NONE;
	if (p < 25)
		return MID_RMMOD_IB_ASYNC;
	if (p < 31)
		return MID_LINK_FLAP;
	if (p < 35)
		return MID_GID_CHANGE;
	return MID_NONE;
}

/* While the workers run: the device goes away under their files. */
static void do_mid(enum mid m, uint64_t seed, struct fz_rng *r)
{
	uint64_t t0 = fz_now_ms();

	/* a removal purges records: channels' sequences may skip them */
	if (m != MID_NONE)
		atomic_fetch_add(&sh->mid_epoch, 1);
	switch (m) {
	case MID_RXE_DELETE:
		run(seed, 120, "rdma link delete rxe0");
		break;
	case MID_EVSRC_UNREGISTER:
		write_file(IBA_EVSRC_DIR "/evsrc0/unregister", "1");
		break;
	case MID_EVSRC_FATAL:
		write_file(IBA_EVSRC_DIR "/evsrc0/fatal", "1");
		evsrc_fatal = true;
		break;
	case MID_EVSRC_RMMOD:
		run(seed, 120, "rmmod ib_async_evsrc");
		break;
	case MID_RMMOD_IB_ASYNC:
		/* refused while a file is open; succeeds only if none is */
		run(seed, 60, "rmmod ib_async");
		break;
	case MID_LINK_FLAP:
		run(seed, 30, "ip link set veth1 down; sleep 0.%u; "
		    "ip link set veth1 up", fz_range(r, 1, 9));
		break;
	case MID_GID_CHANGE:
		run(seed, 30, "ip addr add 10.12.%u.1/24 dev veth0 && sleep 0.5 "
		    "&& ip addr del 10.12.%u.1/24 dev veth0",
		    (unsigned int)(seed % 250), (unsigned int)(seed % 250));
		break;
	default:
		break;
	}
	if (m != MID_NONE && m != MID_LINK_FLAP && m != MID_GID_CHANGE &&
	    fz_now_ms() - t0 > 30000)
		report(seed, mid_names[m], "%s took %" PRIu64 " ms",
		       mid_names[m], fz_now_ms() - t0);
}

/* ---- a batch ---- */

struct proc_state {
	struct fz_ctx *ctx;
	atomic_uint running;
};

static void *worker_main(void *arg)
{
	struct fz_ctx *ctx = arg;

	ctx->tid = (pid_t)syscall(SYS_gettid);
	fz_worker_run(ctx);
	return NULL;
}

static void stuck_report(struct fz_ctx *ctx, uint64_t ms)
{
	char path[64], stack[1024], line[160];
	size_t o = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", ctx->tid);
	stack[0] = 0;
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f) && o + 2 < sizeof(stack)) {
		line[strcspn(line, "\n")] = 0;
		o += snprintf(stack + o, sizeof(stack) - o, " <- %s", line);
	}
	if (f)
		fclose(f);
	fz_report(ctx, "stuck-call",
		  "a call has not returned for %" PRIu64 " s, kernel stack:%s",
		  ms / 1000, stack);
}

/*
 * One process of the batch: its worker threads and their watchdog.
 * @my_gen: the generation of each slot's file this process holds, as it
 * was when the process was forked (the shared one may have moved on).
 */
static void run_workers(uint32_t proc, bool opener, uint64_t budget0,
			uint64_t budget, uint32_t *my_gen)
{
	uint32_t t, n = opt.threads;
	struct fz_ctx *ctx = calloc(n, sizeof(*ctx));
	bool *reported = calloc(n, sizeof(bool));
	uint64_t busy, now;
	int status, alive;
	pid_t pid;

	fz_unstick_init();
	fz_slow_init(sh);
	for (t = 0; t < n; t++) {
		uint32_t w = proc * n + t;

		if (fz_ctx_init(&ctx[t], sh, w, w ? budget : budget0, opener,
				my_gen) ||
		    pthread_create(&ctx[t].thread, NULL, worker_main, &ctx[t])) {
			fprintf(stderr, "fuzz: cannot start worker %u\n", w);
			_exit(2);
		}
	}
	/* interrupt calls that block (read, READ_BATCH) for too long */
	do {
		sleep_ms(20);
		now = fz_now_ms();
		alive = 0;
		for (t = 0; t < n; t++) {
			if (!ctx[t].thread)
				continue;
			if (pthread_tryjoin_np(ctx[t].thread, NULL) == 0) {
				ctx[t].thread = 0;
				continue;
			}
			alive++;
			busy = atomic_load(&ctx[t].busy_since);
			if (!busy || busy > now || now - busy < UNSTICK_MS)
				continue;
			pthread_kill(ctx[t].thread, SIGUSR1);
			if (now - busy > STUCK_MS && !reported[t]) {
				reported[t] = true;
				stuck_report(&ctx[t], now - busy);
			}
		}
	} while (alive);
	/* siblings (the opener's children) and act_fork()'s children */
	while ((pid = wait(&status)) > 0 || errno == EINTR) {
		if (pid > 0 && !(WIFEXITED(status) && !WEXITSTATUS(status)))
			fz_report(&ctx[0], "process-died",
				  "a worker process ended with status 0x%x",
				  status);
	}
}

/*
 * A batch process ends with its parent: a supervisor killed by the
 * kselftest runner's timeout must not leave the batch running, holding the
 * runner's output pipe open (the runner waits for it to close) and the
 * files that the tests after it need closed.
 */
static void die_with_parent(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(3);
}

/* The batch's first process: it opens the files, the others share them. */
static void batch_owner(uint64_t per_worker, uint64_t first)
{
	uint32_t i, p, my_gen[FZ_MAX_FILES] = { 0 };
	pid_t pid, self = getpid();

	setpgid(0, 0);
	for (i = 0; i < sh->nfiles; i++) {
		struct fz_file *f = &sh->file[i];

		f->fd = open(sh->dev[f->dev].node, O_RDWR | O_NONBLOCK);
		if (f->fd < 0)
			f->fd = open("/dev/null", O_RDWR);
		my_gen[i] = f->gen;
	}
	/* no worker runs yet: every sibling holds generation 1 of each */
	for (p = 1; p < opt.procs; p++) {
		pid = fork();
		if (pid == 0) {
			die_with_parent(self);
			run_workers(p, false, per_worker, per_worker, my_gen);
			_exit(0);
		}
	}
	run_workers(0, true, first, per_worker, my_gen);
	_exit(0);
}

static void shared_init(uint64_t seed)
{
	pthread_mutexattr_t ma;

	memset(sh, 0, sizeof(*sh));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&sh->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	sh->seed = seed;
}

/* Two files on rxe0 and one on evsrc0 (or a third on rxe0). */
static void files_init(void)
{
	uint32_t i;

	sh->nfiles = sh->ndev ? 3 : 0;
	for (i = 0; i < sh->nfiles; i++) {
		sh->file[i].dev = i == 2 && sh->ndev > 1 ? 1 : 0;
		sh->file[i].gen = 1;
	}
}

/* Kernel stacks of a stuck batch, for its report. */
static void dump_stacks(pid_t pgid)
{
	char path[300], line[200], comm[64];
	struct dirent *de, *te;
	DIR *d = opendir("/proc"), *td;
	int pid, pg;
	FILE *f;

	while (d && (de = readdir(d))) {
		pid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = pid > 0 ? fopen(path, "re") : NULL;
		if (!f)
			continue;
		pg = -1;
		if (fscanf(f, "%*d (%63[^)]) %*c %*d %d", comm, &pg) != 2)
			pg = -1;
		fclose(f);
		if (pg != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			if (te->d_name[0] == '.')
				continue;
			say("fuzz:   | task %d/%s:", pid, te->d_name);
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stack",
				 pid, te->d_name);
			f = fopen(path, "re");
			while (f && fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = 0;
				say("fuzz:   |   %s", line);
			}
			if (f)
				fclose(f);
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
}

/*
 * Batches that once found a bug, which the quick form replays before its
 * own: each REGRESS_BATCH calls of its seed, as a report named it (--seed
 * S --calls REGRESS_BATCH replays one alone). A change to the generator
 * changes every batch's choices: then re-find a seed for each entry with
 * the bug put back, and replace it.
 */
#define REGRESS_BATCH	5000

static const struct regress {
	uint64_t seed;
	const char *found;
} regress[] = {
	/*
	 * Issue 35, finding 1: RDMA and atomic requests on a UD QP built with
	 * the remote address where a driver reads the AH, and RDMA READs on
	 * UC: the test bed's strict checker WARNs, or a call the send rules
	 * refuse succeeds. With the rules' check taken out, seed 1001
	 * reported it in 3 runs of 3, seed 6 in 2 of 3: the test bed's state
	 * (QP numbers, keys) is no part of a seed, so a replay is likely, not
	 * certain.
	 */
	{ 6, "opcodes a QP type refuses" },
	{ 1001, "opcodes a QP type refuses" },
};

#define NREGRESS	(sizeof(regress) / sizeof(regress[0]))

/* Return: false when the batch hung (its tasks may still be stuck). */
static bool run_batch(uint64_t seed, const char *what, uint64_t calls)
{
	uint64_t t0 = fz_now_ms();
	pid_t supervisor = getpid();
	uint32_t workers = opt.procs * opt.threads;
	uint64_t per = calls / workers, mid_at = 0;
	const char *pre = "none";
	enum mid mid = MID_NONE;
	bool mid_done = true;
	struct fz_rng r;
	bool hung = false;
	int status = 0;
	pid_t pid;

	fz_seed(&r, seed);
	if (opt.env) {
		restore(seed);
		pre = pre_action(&r, seed);
		mid = pick_mid(&r);
		/* after this many of the batch's calls, however fast they go */
		mid_at = fz_below(&r, (uint32_t)calls);
		mid_done = mid == MID_NONE;
	}
	shared_init(seed);
	discover();
	files_init();
	if (!sh->nfiles) {
		report(seed, "no-device", "no ib_async node for rxe0");
		return true;
	}
	kmsg_check(seed);	/* what changing the test bed logged */

	pid = fork();
	if (pid == 0) {
		die_with_parent(supervisor);
		batch_owner(per, calls - per * (workers - 1));
		_exit(0);
	}
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (!mid_done && atomic_load(&sh->calls) >= mid_at) {
			do_mid(mid, seed, &r);
			mid_done = true;
		}
		if (fz_now_ms() - t0 > opt.batch_timeout * 1000ULL) {
			report(seed, "batch-hung",
			       "the batch did not end within %u s; kernel stacks follow",
			       opt.batch_timeout);
			dump_stacks(pid);
			hung = true;
			kill(-pid, SIGKILL);
			sleep_ms(10000);
			waitpid(pid, &status, WNOHANG);
			break;
		}
		sleep_ms(10);
	}
	while (waitpid(-pid, NULL, WNOHANG) > 0)
		;
	if (!mid_done)
		do_mid(mid, seed, &r);	/* the batch was quicker: no files */
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		report(seed, "owner-died", "the batch process ended with status 0x%x",
		       status);
	collect_worker_reports(seed);
	if (opt.env)
		restore(seed);
	kmsg_check(seed);
	total_calls += atomic_load(&sh->calls);
	stats_add(&st, &sh->stats);
	say("fuzz: %s seed %" PRIu64 ": %llu calls (%" PRIu64
	    " in all), %u reports so far, env %s/%s@%" PRIu64 ", %.1f s",
	    what, seed, (unsigned long long)atomic_load(&sh->calls),
	    total_calls, total_reports, pre, mid_names[mid], mid_at,
	    (fz_now_ms() - t0) / 1000.0);
	return !hung;
}

/* ---- setup and the run ---- */

static void setup(void)
{
	if (!exists("/sys/kernel/debug/tracing") &&
	    !exists("/sys/kernel/debug/kmemleak") && !exists(STORM_FILE))
		run(0, 10, "mount -t debugfs debugfs /sys/kernel/debug");
	if (!exists(STORM_FILE) && exists(STORM_KO) &&
	    !run(0, 30, "insmod %s", STORM_KO))
		loaded_storm = true;
	want_evsrc = exists(IBA_EVSRC_DIR) || exists(IBA_EVSRC_KO);
	if (want_evsrc && !exists(IBA_EVSRC_DIR) && !run(0, 30, "insmod %s", IBA_EVSRC_KO))
		loaded_evsrc = true;
	if (want_evsrc && exists(IBA_EVSRC_DIR) && !exists(IBA_EVSRC_DIR "/evsrc0"))
		add_evsrc0(0);
	want_evsrc = want_evsrc && wait_until(evsrc_ready, 20);
	if (opt.env && exists(KMEMLEAK))
		write_file(KMEMLEAK, "clear");
}

/* Leave the guest as the quick form found it. */
static void teardown(void)
{
	if (opt.env && exists(KMEMLEAK)) {
		/* leaks of everything the run did, modules unloaded */
		run(0, 120, "rmmod ib_async_evsrc; rmmod ib_async_storm; "
		    "rmmod ib_async");
		write_file(KMEMLEAK, "scan");
		sleep_ms(6000);
		write_file(KMEMLEAK, "scan");
		kmsg_check(opt.seed);
		run(0, 60, "insmod %s", IB_ASYNC_KO);
		return;
	}
	if (loaded_evsrc)
		run(0, 120, "rmmod ib_async_evsrc");
	if (loaded_storm)
		run(0, 60, "rmmod ib_async_storm");
}

/* A KASAN kernel, as ib_async_lib.sh tells one: by its quarantine. */
static bool kasan(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_quarantine_put\n") != NULL;
	if (f)
		fclose(f);
	return found;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ib_async_fuzz [--calls N] [--seed S] [--batch B] [--procs P]\n"
		"                     [--threads T] [--env] [--batch-timeout SECS]\n"
		"                     [--verbose] [--trace FILE]\n"
		"no option: the quick form, as a kselftest (TAP)\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "env", no_argument, NULL, 'e' },
		{ "batch-timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "trace", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opt.tap = argc == 1;
	if (opt.tap) {
		if (kasan())
			opt.calls = QUICK_CALLS_KASAN;
		opt.batch_timeout = QUICK_BATCH_TIMEOUT;
		return;
	}
	opt.batch = 2000;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.calls = strtoull(optarg, NULL, 0);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			opt.batch = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			opt.procs = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.threads = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			opt.env = true;
			break;
		case 'T':
			opt.batch_timeout = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'x':
			fz_trace_fd = open(optarg, O_WRONLY | O_CREAT | O_APPEND |
					   O_TRUNC | O_CLOEXEC, 0644);
			if (fz_trace_fd < 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.batch || !opt.procs || !opt.threads ||
	    opt.procs * opt.threads > SEED_STRIDE - 1 || opt.threads > 64)
		usage();
}

int main(int argc, char **argv)
{
	uint64_t left, t0 = fz_now_ms();
	uint32_t b, nbatches;
	char node[64], what[128];
	bool hung = false;

	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.tap)
		printf("TAP version 13\n1..1\n");
	if (geteuid()) {
		say("fuzz: needs root (modules, /dev/kmsg, debugfs)");
		if (opt.tap)
			printf("ok 1 ib_async_fuzz # SKIP not root\n");
		return 4;
	}
	if (!node_of("rxe0", node, sizeof(node))) {
		say("fuzz: no ib_async node for rxe0");
		if (opt.tap)
			printf("ok 1 ib_async_fuzz # SKIP no rxe0 node\n");
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	fz_mem_init();
	kmsg_open();
	setup();
	nbatches = (uint32_t)((opt.calls + opt.batch - 1) / opt.batch);
	say("fuzz: seed %" PRIu64 ", %" PRIu64 " calls in %u batches of %u, "
	    "%u processes x %u threads, evsrc0 %s, storm %s, test bed %s",
	    opt.seed, opt.calls, nbatches, opt.batch, opt.procs, opt.threads,
	    want_evsrc ? "yes" : "no", exists(STORM_FILE) ? "yes" : "no",
	    opt.env ? "changing" : "kept");
	left = opt.calls;
	for (b = 0; opt.tap && b < NREGRESS && !hung; b++) {
		snprintf(what, sizeof(what), "regression batch %u/%zu (%s)",
			 b + 1, NREGRESS, regress[b].found);
		hung = !run_batch(regress[b].seed, what, REGRESS_BATCH);
	}
	for (b = 0; b < nbatches && !hung; b++) {
		snprintf(what, sizeof(what), "batch %u/%u", b + 1, nbatches);
		/* after a hang, more batches would only wait on its tasks */
		hung = !run_batch(opt.seed + (uint64_t)b * SEED_STRIDE, what,
				  left < opt.batch ? left : opt.batch);
		left -= left < opt.batch ? left : opt.batch;
	}
	if (hung)
		say("fuzz: batches after the hung one not run");
	teardown();
	say_stats();
	say_repeats();
	say("fuzz: %.1f s", (fz_now_ms() - t0) / 1000.0);
	if (opt.tap) {
		printf("# fuzz: %" PRIu64 " calls, %u reports\n", total_calls,
		       total_reports);
		printf("%s 1 ib_async_fuzz seed %" PRIu64 "\n",
		       total_reports ? "not ok" : "ok", opt.seed);
	} else {
		printf("fuzz: %" PRIu64 " calls, %u reports\n", total_calls,
		       total_reports);
	}
	return total_reports ? 1 : 0;
}
