/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ib_async selftests: find the device, read records,
 * run the test bed's commands and drive the ib_async_storm test module.
 */
#ifndef IB_ASYNC_UTIL_H
#define IB_ASYNC_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <rdma/ib_async.h>

#include "modules/ib_async_event_names.h"

/*
 * kselftest_harness.h (6.1) has an unused parameter in its own code; keep
 * -Wextra -Werror for ours.
 */
#ifndef IBA_NO_HARNESS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#endif

#define IBA_REC			((int)sizeof(struct ib_async_event))
#define IBA_CLASS_DIR		"/sys/class/ib_async"
#define IBA_PARAM_DIR		"/sys/module/ib_async/parameters"
#define IBA_STORM_DIR		"/sys/kernel/debug/ib_async_storm"
#define IBA_STORM_FILE		IBA_STORM_DIR "/dispatch"
/* TCG emulation is slow: one awaited event may take seconds. */
#define IBA_EVENT_TIMEOUT_MS	10000

struct iba_dev {
	char node[PATH_MAX];	/* /dev/infiniband/ib_asyncN */
	char ibdev[64];		/* rxe0 */
};

static inline uint64_t iba_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void iba_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int iba_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

static inline long iba_read_long(const char *path)
{
	char buf[64];

	if (iba_read_line(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

/*
 * Find the ib_async node to test: the one whose ibdev is $IB_ASYNC_IBDEV
 * (default rxe0), else the first one. Returns 0, or -1 when there is none.
 */
static inline int iba_find_dev(struct iba_dev *dev)
{
	const char *want = getenv("IB_ASYNC_IBDEV");
	char path[PATH_MAX], name[64];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (!want)
		want = "rxe0";
	memset(dev, 0, sizeof(*dev));
	d = opendir(IBA_CLASS_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "ib_async", 8))
			continue;
		snprintf(path, sizeof(path), IBA_CLASS_DIR "/%s/ibdev",
			 de->d_name);
		if (iba_read_line(path, name, sizeof(name)))
			continue;
		if (found && strcmp(name, want))
			continue;
		snprintf(dev->node, sizeof(dev->node), "/dev/infiniband/%s",
			 de->d_name);
		snprintf(dev->ibdev, sizeof(dev->ibdev), "%s", name);
		found = 1;
		if (!strcmp(name, want))
			break;
	}
	closedir(d);
	return found ? 0 : -1;
}

/* The device counter counters/@name of @dev's node, from sysfs, or -1. */
static inline long iba_counter(const struct iba_dev *dev, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), IBA_CLASS_DIR "/%s/counters/%s",
		 strrchr(dev->node, '/') + 1, name);
	return iba_read_long(path);
}

static inline int iba_get_info(int fd, struct ib_async_info *info)
{
	memset(info, 0, sizeof(*info));
	info->argsz = sizeof(*info);
	return ioctl(fd, IB_ASYNC_IOC_GET_INFO, info);
}

/* GET_INFO's feature bits, or all bits set if GET_INFO fails. */
static inline uint64_t iba_features(int fd)
{
	struct ib_async_info info;

	return iba_get_info(fd, &info) ? ~0ULL : info.features;
}

/* iba_btf_has()'s search of one BTF file: 1, 0, or -1 if unreadable */
static inline int iba_btf_file_has(const char *path, const char *needle,
				   size_t nlen)
{
	size_t len = 0, cap = 8 << 20;
	char *buf = malloc(cap);
	int fd, found = -1;
	ssize_t n = -1;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf)
		goto out;
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *more = realloc(buf, cap *= 2);

			if (!more)
				goto out;
			buf = more;
		}
	}
	if (n == 0)
		found = memmem(buf, len, needle, nlen) != NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return found;
}

/*
 * Whether the running kernel knows the identifier @name (a function, type
 * or enumerator) in module @mod (ib_core...) or in vmlinux, which holds
 * the types a module's BTF shares with it: from their BTF, whose string
 * section has every such name, each NUL-terminated after an empty first
 * string. 1 or 0, or -1 when the kernel has no BTF (the debug kernel).
 * The running kernel's own answer, not that of the probes ib_async and
 * the test modules were built with.
 */
static inline int iba_btf_has(const char *mod, const char *name)
{
	char path[128], needle[128];
	size_t nlen = strlen(name) + 2;
	int in_mod, in_vmlinux;

	if (nlen > sizeof(needle))
		return -1;
	/* "\0name\0": neither a longer name nor a shorter one matches */
	needle[0] = '\0';
	memcpy(needle + 1, name, nlen - 1);
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", mod);
	in_mod = iba_btf_file_has(path, needle, nlen);
	in_vmlinux = iba_btf_file_has("/sys/kernel/btf/vmlinux", needle, nlen);
	if (in_mod < 0 || in_vmlinux < 0)
		return -1;
	return in_mod || in_vmlinux;
}

/* Wait until @p holds @byte (written by the device, not by a poll). */
static inline int iba_wait_byte(const volatile char *p, char byte)
{
	uint64_t t0 = iba_now_ms();

	while (*p != byte) {
		if (iba_now_ms() - t0 > IBA_EVENT_TIMEOUT_MS)
			return -1;
		iba_sleep_ms(1);
	}
	return 0;
}

/*
 * The MR the RDMA core knows by @lkey on @ibdev: its length, or -1 when
 * it has none (`rdma resource show mr` prints lkey and rkey to root).
 * Its rkey goes to *@rkey unless @rkey is NULL.
 */
static inline long iba_core_mr_len(const char *ibdev, uint32_t lkey,
				   uint32_t *rkey)
{
	char cmd[256], line[1024], key[32], *p;
	long len = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show mr dev %s 2>/dev/null",
		 ibdev);
	snprintf(key, sizeof(key), " lkey 0x%x ", lkey);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, key))
			continue;
		p = strstr(line, " rkey ");
		if (p && rkey)
			*rkey = strtoul(p + 6, NULL, 16);
		p = strstr(line, " mrlen ");
		if (p)
			len = strtol(p + 7, NULL, 10);
	}
	pclose(f);
	return len;
}

static inline int iba_set_queue_len(int fd, unsigned int len)
{
	struct ib_async_queue_len q = {
		.argsz = sizeof(q),
		.queue_len = len,
	};

	return ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &q);
}

static inline int iba_fionread(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n))
		return -1;
	return n;
}

/* Events offered to this file since open (queued or lost). */
static inline long long iba_offered(int fd)
{
	struct ib_async_info info;

	if (iba_get_info(fd, &info))
		return -1;
	return (long long)info.next_seq - 1;
}

/* Wait until at least @total events were offered to @fd since open. */
static inline int iba_wait_offered(int fd, long long total, int timeout_ms)
{
	uint64_t end = iba_now_ms() + timeout_ms;

	for (;;) {
		long long n = iba_offered(fd);

		if (n < 0)
			return -1;
		if (n >= total)
			return 0;
		if (iba_now_ms() > end)
			return -1;
		iba_sleep_ms(20);
	}
}

/* Wait until @fd has at least @nrec records queued (FIONREAD). */
static inline int iba_wait_queued(int fd, int nrec, int timeout_ms)
{
	uint64_t end = iba_now_ms() + timeout_ms;

	for (;;) {
		int n = iba_fionread(fd);

		if (n < 0)
			return -1;
		if (n >= nrec * IBA_REC)
			return 0;
		if (iba_now_ms() > end)
			return -1;
		iba_sleep_ms(20);
	}
}

/* The next record within @timeout_ms: 0, or -1 (nothing came, or error). */
static inline int iba_read_one(int fd, struct ib_async_event *ev,
			       int timeout_ms)
{
	uint64_t end = iba_now_ms() + timeout_ms;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = (long)(end - iba_now_ms());
		ssize_t n;

		if (left <= 0)
			return -1;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(fd, ev, sizeof(*ev));
		if (n == (ssize_t)sizeof(*ev))
			return 0;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		return -1;
	}
}

/*
 * Read records until one of @type arrives (others are skipped), waiting at
 * most @timeout_ms in all. Returns 0 with *@out filled, -1 on timeout or
 * error.
 */
static inline int iba_wait_type(int fd, uint32_t type, int timeout_ms,
				struct ib_async_event *out)
{
	uint64_t end = iba_now_ms() + timeout_ms;
	struct ib_async_event ev;

	do {
		if (iba_read_one(fd, &ev, (int)(end - iba_now_ms())))
			return -1;
	} while (ev.event_type != type);
	if (out)
		*out = ev;
	return 0;
}

/*
 * The number after "@key:" on its line of @path (a /proc file of
 * "key: value" lines; the last such line wins), or -1.
 */
static inline long long iba_proc_value(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/* This process's pinned memory (VmPin of /proc/self/status), kB, or -1. */
static inline long iba_vm_pin_kb(void)
{
	return (long)iba_proc_value("/proc/self/status", "VmPin");
}

/* The "@name:" line of /proc/meminfo, in kB, or -1. */
static inline long iba_meminfo_kb(const char *name)
{
	return (long)iba_proc_value("/proc/meminfo", name);
}

/* The value of the "ib_async-@name:" line of @fd's fdinfo, or -1. */
static inline long long iba_fdinfo(int fd, const char *name)
{
	char path[64], key[128];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(key, sizeof(key), "ib_async-%s", name);
	return iba_proc_value(path, key);
}

/* Read everything queued now (nonblocking fd). Returns records read. */
static inline int iba_drain(int fd)
{
	struct ib_async_event ev[64];
	int total = 0;
	ssize_t n;

	while ((n = read(fd, ev, sizeof(ev))) > 0)
		total += (int)(n / IBA_REC);
	return total;
}

/*
 * Wait until the device has been quiet for @quiet_ms (stray link or GID
 * events from earlier tests), at most @timeout_ms. Uses its own file.
 */
static inline void iba_quiesce(const struct iba_dev *dev, int quiet_ms,
			       int timeout_ms)
{
	uint64_t end = iba_now_ms() + timeout_ms;
	uint64_t last;
	int fd;

	fd = open(dev->node, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return;
	last = iba_now_ms();
	while (iba_now_ms() < end) {
		if (iba_drain(fd) > 0)
			last = iba_now_ms();
		if (iba_now_ms() - last >= (uint64_t)quiet_ms)
			break;
		iba_sleep_ms(50);
	}
	close(fd);
}

/* Run a shell command; returns its exit status (or -1). */
static inline int iba_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc))
		return -1;
	return WEXITSTATUS(rc);
}

/*
 * Load a module as every script does: load_module of ib_async_lib.sh, which
 * is installed next to the test programs (it finds the test modules through
 * $IB_ASYNC_STORM_KO, $IB_ASYNC_EVSRC_KO, the installed copies or ./).
 * Returns 0 once the module is loaded.
 */
static inline int iba_load_module(const char *name)
{
	char dir[PATH_MAX], sys[PATH_MAX];
	ssize_t n;

	snprintf(sys, sizeof(sys), "/sys/module/%s", name);
	if (!access(sys, F_OK))
		return 0;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return -1;
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	iba_sh(". '%s/ib_async_lib.sh' && load_module %s >/dev/null 2>&1",
	       dir, name);
	return access(sys, F_OK) ? -1 : 0;
}

/*
 * Make the storm module's debugfs file available: mount debugfs and load
 * the module if it is not loaded yet. Returns 0 when the file exists.
 */
static inline int iba_storm_available(void)
{
	if (!access(IBA_STORM_FILE, W_OK))
		return 0;
	iba_load_module("ib_async_storm");
	if (access(IBA_STORM_FILE, F_OK))
		iba_sh("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null");
	return access(IBA_STORM_FILE, W_OK) ? -1 : 0;
}

/*
 * Write @len bytes of @buf to @path (a debugfs, tracefs or sysfs control
 * file) in one write(), opened O_WRONLY | @flags. 0, -errno, or -EIO for
 * a short write.
 */
static inline int iba_write_file(const char *path, const char *buf,
				 size_t len, int flags)
{
	int fd, ret = 0;
	ssize_t n;

	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if (n != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * ib_async_strict.ko, the checker of kernel work requests in front of rxe
 * (modules/ib_async_strict_*.c): the guest's /init loads it; a test that
 * wants it loads it here if it is not. 0 once its debugfs files are there.
 */
#define IBA_STRICT_DIR		"/sys/kernel/debug/ib_async_strict"

static inline int iba_strict_available(void)
{
	if (!access(IBA_STRICT_DIR "/checked", R_OK))
		return 0;
	iba_sh("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null");
	iba_load_module("ib_async_strict");
	return access(IBA_STRICT_DIR "/checked", R_OK) ? -1 : 0;
}

/* One of its counters (checked, violations, unchecked...), or -1. */
static inline long iba_strict_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), IBA_STRICT_DIR "/%s", name);
	return iba_read_long(path);
}

/* Dispatch @count events of @type on @port of @ibdev. 0 or -errno. */
static inline int iba_storm(const char *ibdev, unsigned int type,
			    unsigned int port, unsigned long count)
{
	char buf[128];
	int len;

	len = snprintf(buf, sizeof(buf), "%s %u %u %lu\n", ibdev, type, port,
		       count);
	return iba_write_file(IBA_STORM_FILE, buf, len, 0);
}

static inline const char *iba_type_str(uint32_t t)
{
	if (t == IB_ASYNC_EV_OVERFLOW)
		return "OVERFLOW";
	return ib_async_event_name(t) ?: "?";
}

/*
 * The 6.1 harness runs the test body even when FIXTURE_SETUP skipped; every
 * test body starts with this so a skipped setup never touches the device.
 */
/*
 * Clear CAP_IPC_LOCK from the effective set, so RLIMIT_MEMLOCK applies to
 * what the kernel charges this process's user for.
 */
static inline int iba_drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &hdr, data);
}

#define IBA_SKIPPED_IN_SETUP() do {		\
	if (_metadata->skip)			\
		return;				\
} while (0)

/* Check that each record's seq + count is the next record's seq. */
static inline int iba_seq_continuous(const struct ib_async_event *ev, int n)
{
	int i;

	for (i = 0; i + 1 < n; i++)
		if (ev[i].seq + ev[i].count != ev[i + 1].seq)
			return i;
	return -1;
}

/*
 * One blocking read() of a record, as a thread body: what ended it (the
 * result and errno) is left in the struct, to see what wakes a reader.
 */
struct iba_reader {
	int fd;
	ssize_t ret;
	int err;
};

static inline void *iba_reader_run(void *arg)
{
	struct iba_reader *r = arg;
	struct ib_async_event ev;

	r->ret = read(r->fd, &ev, sizeof(ev));
	r->err = errno;
	return NULL;
}

#endif /* IB_ASYNC_UTIL_H */
