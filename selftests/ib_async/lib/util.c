// SPDX-License-Identifier: GPL-2.0
/*
 * The bodies of iba_util.h's helpers: finding the device, reading
 * records, /proc and sysfs values, the storm and strict modules' files.
 */
#define IBA_NO_HARNESS
#include <assert.h>

#include "iba_util.h"

uint64_t iba_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void iba_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

long iba_read_long(const char *path)
{
	char buf[64];

	if (iba_read_line(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 0);
}

int iba_find_dev(struct iba_dev *dev)
{
	const char *want = getenv("IB_ASYNC_IBDEV");

	if (!want)
		want = "rxe0";
	memset(dev, 0, sizeof(*dev));
	if (!iba_dev_of(want, dev))
		return 0;
	return iba_dev_of(NULL, dev);
}

long iba_counter(const struct iba_dev *dev, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), IBA_CLASS_DIR "/%s/counters/%s",
		 strrchr(dev->node, '/') + 1, name);
	return iba_read_long(path);
}

int iba_get_info(int fd, struct ib_async_info *info)
{
	memset(info, 0, sizeof(*info));
	info->argsz = sizeof(*info);
	return ioctl(fd, IB_ASYNC_IOC_GET_INFO, info);
}

uint64_t iba_features(int fd)
{
	struct ib_async_info info;

	return iba_get_info(fd, &info) ? ~0ULL : info.features;
}

int iba_btf_file_has(const char *path, const char *needle,
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

int iba_btf_has(const char *mod, const char *name)
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

int iba_wait_byte(const volatile char *p, char byte)
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
 * The MRs the RDMA core lists on @ibdev, each line handed to @line with
 * @arg until it returns non-zero: that value, or 0 after the last, or -1
 * when the list cannot be had.
 */
static long core_mr_lines(const char *ibdev,
			  long (*line)(const char *l, void *arg), void *arg)
{
	char cmd[256], l[1024];
	long ret = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show mr dev %s 2>/dev/null",
		 ibdev);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (!ret && fgets(l, sizeof(l), f))
		ret = line(l, arg);
	pclose(f);
	return ret;
}

/* A field of an MR's line, a number in @base; -1 when it has none. */
static long long core_mr_field(const char *l, const char *name, int base)
{
	const char *p = strstr(l, name);

	return p ? strtoll(p + strlen(name), NULL, base) : -1;
}

struct core_mr_query {
	uint32_t lkey;
	uint32_t len;
	uint32_t *rkey;
};

static long core_mr_by_lkey(const char *l, void *arg)
{
	struct core_mr_query *q = arg;
	long long rkey;

	if (core_mr_field(l, " lkey 0x", 16) != q->lkey)
		return 0;
	rkey = core_mr_field(l, " rkey 0x", 16);
	if (q->rkey && rkey >= 0)
		*q->rkey = rkey;
	return core_mr_field(l, " mrlen ", 10);
}

long iba_core_mr_len(const char *ibdev, uint32_t lkey,
		     uint32_t *rkey)
{
	struct core_mr_query q = { .lkey = lkey, .rkey = rkey };
	long len = core_mr_lines(ibdev, core_mr_by_lkey, &q);

	return len > 0 ? len : -1;
}

static long core_mr_by_len(const char *l, void *arg)
{
	struct core_mr_query *q = arg;

	if (core_mr_field(l, " mrlen ", 10) != q->len)
		return 0;
	q->lkey = core_mr_field(l, " lkey 0x", 16);
	return 1;
}

int iba_core_mr_lkey(const char *ibdev, uint32_t len, uint32_t *lkey)
{
	struct core_mr_query q = { .len = len };

	if (core_mr_lines(ibdev, core_mr_by_len, &q) != 1)
		return -1;
	*lkey = q.lkey;
	return 0;
}

int iba_set_queue_len(int fd, unsigned int len)
{
	struct ib_async_queue_len q = {
		.argsz = sizeof(q),
		.queue_len = len,
	};

	return ioctl(fd, IB_ASYNC_IOC_SET_QUEUE_LEN, &q);
}

int iba_fionread(int fd)
{
	int n = -1;

	if (ioctl(fd, FIONREAD, &n))
		return -1;
	return n;
}

long long iba_offered(int fd)
{
	struct ib_async_info info;

	if (iba_get_info(fd, &info))
		return -1;
	return (long long)info.next_seq - 1;
}

int iba_wait_offered(int fd, long long total, int timeout_ms)
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

int iba_wait_queued(int fd, int nrec, int timeout_ms)
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

int iba_read_one(int fd, struct ib_async_event *ev,
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

int iba_wait_type(int fd, uint32_t type, int timeout_ms,
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

long long iba_proc_value(const char *path, const char *key)
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

long iba_vm_pin_kb(void)
{
	return (long)iba_proc_value("/proc/self/status", "VmPin");
}

long iba_meminfo_kb(const char *name)
{
	return (long)iba_proc_value("/proc/meminfo", name);
}

long long iba_fdinfo(int fd, const char *name)
{
	char path[64], key[128];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(key, sizeof(key), "ib_async-%s", name);
	return iba_proc_value(path, key);
}

int iba_drain(int fd)
{
	struct ib_async_event ev[64];
	int total = 0;
	ssize_t n;

	while ((n = read(fd, ev, sizeof(ev))) > 0)
		total += (int)(n / IBA_REC);
	return total;
}

void iba_quiesce(const struct iba_dev *dev, int quiet_ms,
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

int iba_sh(const char *fmt, ...)
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

int iba_rxe_readd(struct iba_dev *dev)
{
	uint64_t t0;
	int ret;

	ret = iba_sh("rdma link add %s type rxe netdev %s", dev->ibdev,
		     getenv("IB_ASYNC_NETDEV") ?: "veth0");
	if (ret)
		return ret;
	t0 = iba_now_ms();
	while (iba_find_dev(dev) && iba_now_ms() - t0 < 10000)
		iba_sleep_ms(100);
	return access(dev->node, F_OK) ? -errno : 0;
}

int iba_load_module(const char *name)
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
	iba_sh("cd '%s' && . ./ib_async_lib.sh && load_module %s >/dev/null 2>&1",
	       dir, name);
	return access(sys, F_OK) ? -1 : 0;
}

int iba_storm_available(void)
{
	if (!access(IBA_STORM_FILE, W_OK))
		return 0;
	iba_load_module("ib_async_storm");
	if (access(IBA_STORM_FILE, F_OK))
		iba_sh("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null");
	return access(IBA_STORM_FILE, W_OK) ? -1 : 0;
}

int iba_write_file(const char *path, const char *buf,
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

int iba_strict_available(void)
{
	if (!access(IBA_STRICT_DIR "/checked", R_OK))
		return 0;
	iba_sh("mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null");
	iba_load_module("ib_async_strict");
	return access(IBA_STRICT_DIR "/checked", R_OK) ? -1 : 0;
}

long iba_strict_counter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), IBA_STRICT_DIR "/%s", name);
	return iba_read_long(path);
}

int iba_storm(const char *ibdev, unsigned int type,
	      unsigned int port, unsigned long count)
{
	char buf[128];
	int len;

	len = snprintf(buf, sizeof(buf), "%s %u %u %lu\n", ibdev, type, port,
		       count);
	return iba_write_file(IBA_STORM_FILE, buf, len, 0);
}

/*
 * ib_async_event_types.h's rows are in the order of the types' values:
 * ib_async_event_name() indexes its names so, and gen/verbs.py numbers
 * the rows so.
 */
#define IBA_EV_ORDER(name, element)					\
	static_assert((int)IBA_EV_ROW_##name == (int)IB_ASYNC_EV_##name, #name);
IB_ASYNC_EVENT_TYPES(IBA_EV_ORDER)
#undef IBA_EV_ORDER

const char *iba_type_str(uint32_t t)
{
	if (t == IB_ASYNC_EV_OVERFLOW)
		return "OVERFLOW";
	return ib_async_event_name(t) ?: "?";
}

int iba_drop_ipc_lock(void)
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

int iba_seq_continuous(const struct ib_async_event *ev, int n)
{
	int i;

	for (i = 0; i + 1 < n; i++)
		if (ev[i].seq + ev[i].count != ev[i + 1].seq)
			return i;
	return -1;
}

int iba_read_recs(int fd, void *buf, size_t rec_size, int max)
{
	int total = 0;
	ssize_t n;

	while (total < max) {
		n = read(fd, (char *)buf + (size_t)total * rec_size,
			 (size_t)(max - total) * rec_size);
		if (n <= 0)
			break;
		total += (int)((size_t)n / rec_size);
	}
	return total;
}

int iba_seq_from(const void *recs, size_t rec_size, int n, uint64_t first)
{
	const struct ib_async_event *ev;

	for (int i = 0; i < n; i++) {
		ev = (const void *)((const char *)recs + (size_t)i * rec_size);
		if (ev->seq != first)
			return 0;
		first += ev->count;
	}
	return 1;
}

void iba_stream_init(struct iba_stream *s, uint64_t first)
{
	memset(s, 0, sizeof(*s));
	s->next = first;
	s->bad = -1;
}

static void stream_broken(struct iba_stream *s, const char *why)
{
	if (!s->why) {
		s->why = why;
		s->bad = s->recs;
	}
}

int iba_stream_add(struct iba_stream *s, const void *recs, size_t rec_size,
		   int n)
{
	const struct ib_async_event *ev;

	for (int i = 0; i < n; i++, s->recs++) {
		ev = (const void *)((const char *)recs + (size_t)i * rec_size);
		if (ev->seq < s->next)
			stream_broken(s, "seq went backwards (a record twice?)");
		else if (ev->seq > s->next)
			stream_broken(s, "a gap in seq (a record missing)");
		if (ev->event_type == IB_ASYNC_EV_OVERFLOW) {
			s->overflows++;
			s->lost += ev->count;
			if (!ev->count)
				stream_broken(s, "an overflow record of 0");
			if (ev->obj_type != IB_ASYNC_OBJ_NONE)
				stream_broken(s, "an overflow record of an object");
		} else {
			if (ev->event_type == IB_ASYNC_EV_STATE)
				s->states++;
			else
				s->events++;
			if (ev->count != 1)
				stream_broken(s, "a record that is not 1 event");
		}
		/* the next record follows this one, whatever this one was */
		s->next = ev->seq + ev->count;
	}
	return s->why ? -1 : 0;
}

void *iba_reader_run(void *arg)
{
	struct iba_reader *r = arg;
	struct ib_async_event ev;

	r->ret = read(r->fd, &ev, sizeof(ev));
	r->err = errno;
	return NULL;
}
