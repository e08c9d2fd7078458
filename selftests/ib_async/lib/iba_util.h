/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the ib_async selftests: find the device, read records,
 * run the test bed's commands and drive the ib_async_storm test module.
 */
#ifndef IBA_UTIL_H
#define IBA_UTIL_H

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

#include "iba_testbed.h"
#include "../../../include/ib_async_event_names.h"

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
#define IBA_PARAM_DIR		"/sys/module/ib_async/parameters"
#define IBA_STORM_DIR		"/sys/kernel/debug/ib_async_storm"
#define IBA_STORM_FILE		IBA_STORM_DIR "/dispatch"
/* TCG emulation is slow: one awaited event may take seconds. */
#define IBA_EVENT_TIMEOUT_MS	10000

uint64_t iba_now_ms(void);

void iba_sleep_ms(unsigned int ms);

/*
 * Spin until @cond holds or @ms milliseconds have passed: 0, or
 * -ETIMEDOUT. For what the kernel writes into memory the test shares
 * with it (ring headers), which no system call can wait on; @cond is
 * evaluated again on each turn, so it must read that memory atomically.
 */
#define IBA_SPIN_UNTIL(cond, ms)					\
({									\
	uint64_t __iba_end = iba_now_ms() + (ms);			\
	int __iba_ret = 0;						\
									\
	while (!(cond)) {						\
		if (iba_now_ms() > __iba_end) {				\
			__iba_ret = -ETIMEDOUT;				\
			break;						\
		}							\
	}								\
	__iba_ret;							\
})

long iba_read_long(const char *path);

/*
 * Find the ib_async node to test: the one whose ibdev is $IB_ASYNC_IBDEV
 * (default rxe0), else the first one. Returns 0, or -1 when there is none.
 */
int iba_find_dev(struct iba_dev *dev);

/* The device counter counters/@name of @dev's node, from sysfs, or -1. */
long iba_counter(const struct iba_dev *dev, const char *name);

int iba_get_info(int fd, struct ib_async_info *info);

/* GET_INFO's feature bits, or all bits set if GET_INFO fails. */
uint64_t iba_features(int fd);

/* iba_btf_has()'s search of one BTF file: 1, 0, or -1 if unreadable */
int iba_btf_file_has(const char *path, const char *needle,
		     size_t nlen);

/*
 * Whether the running kernel knows the identifier @name (a function, type
 * or enumerator) in module @mod (ib_core...) or in vmlinux, which holds
 * the types a module's BTF shares with it: from their BTF, whose string
 * section has every such name, each NUL-terminated after an empty first
 * string. 1 or 0, or -1 when the kernel has no BTF (the debug kernel).
 * The running kernel's own answer, not that of the probes ib_async and
 * the test modules were built with.
 */
int iba_btf_has(const char *mod, const char *name);

/* Wait until @p holds @byte (written by the device, not by a poll). */
int iba_wait_byte(const volatile char *p, char byte);

/*
 * The MR the RDMA core knows by @lkey on @ibdev: its length, or -1 when
 * it has none (`rdma resource show mr` prints lkey and rkey to root).
 * Its rkey goes to *@rkey unless @rkey is NULL.
 */
long iba_core_mr_len(const char *ibdev, uint32_t lkey,
		     uint32_t *rkey);

/*
 * The lkey of an MR the RDMA core knows on @ibdev of @len bytes, the
 * first it lists, into *@lkey: 0, or -1 when it knows none.
 */
int iba_core_mr_lkey(const char *ibdev, uint32_t len, uint32_t *lkey);

int iba_set_queue_len(int fd, unsigned int len);

int iba_fionread(int fd);

/* Events offered to this file since open (queued or lost). */
long long iba_offered(int fd);

/* Wait until at least @total events were offered to @fd since open. */
int iba_wait_offered(int fd, long long total, int timeout_ms);

/* Wait until @fd has at least @nrec records queued (FIONREAD). */
int iba_wait_queued(int fd, int nrec, int timeout_ms);

/* The next record within @timeout_ms: 0, or -1 (nothing came, or error). */
int iba_read_one(int fd, struct ib_async_event *ev,
		 int timeout_ms);

/*
 * Read records until one of @type arrives (others are skipped), waiting at
 * most @timeout_ms in all. Returns 0 with *@out filled, -1 on timeout or
 * error.
 */
int iba_wait_type(int fd, uint32_t type, int timeout_ms,
		  struct ib_async_event *out);

/*
 * The number after "@key:" on its line of @path (a /proc file of
 * "key: value" lines; the last such line wins), or -1.
 */
long long iba_proc_value(const char *path, const char *key);

/* This process's pinned memory (VmPin of /proc/self/status), kB, or -1. */
long iba_vm_pin_kb(void);

/* The "@name:" line of /proc/meminfo, in kB, or -1. */
long iba_meminfo_kb(const char *name);

/* The value of the "ib_async-@name:" line of @fd's fdinfo, or -1. */
long long iba_fdinfo(int fd, const char *name);

/* Read everything queued now (nonblocking fd). Returns records read. */
int iba_drain(int fd);

/*
 * Wait until the device has been quiet for @quiet_ms (stray link or GID
 * events from earlier tests), at most @timeout_ms. Uses its own file.
 */
void iba_quiesce(const struct iba_dev *dev, int quiet_ms,
		 int timeout_ms);

/* Run a shell command; returns its exit status (or -1). */
int iba_sh(const char *fmt, ...);

/*
 * After a test deleted @dev's rxe device: add it again on
 * $IB_ASYNC_NETDEV (veth0) and wait up to 10 s for @dev to find its node.
 * 0 once the node is there; the command's exit status, or -errno.
 */
int iba_rxe_readd(struct iba_dev *dev);

/*
 * Load a module as every script does: load_module, the test bed's
 * (scripts/guest/ib_async_modules.sh), through ib_async_lib.sh, which is
 * installed next to the test programs (it finds the test modules through
 * $IB_ASYNC_STORM_KO, $IB_ASYNC_EVSRC_KO, the installed copies or ./).
 * Returns 0 once the module is loaded.
 */
int iba_load_module(const char *name);

/*
 * Make the storm module's debugfs file available: mount debugfs and load
 * the module if it is not loaded yet. Returns 0 when the file exists.
 */
int iba_storm_available(void);

/*
 * Write @len bytes of @buf to @path (a debugfs, tracefs or sysfs control
 * file) in one write(), opened O_WRONLY | @flags. 0, -errno, or -EIO for
 * a short write.
 */
int iba_write_file(const char *path, const char *buf,
		   size_t len, int flags);

/*
 * ib_async_strict.ko, the checker of kernel work requests in front of rxe
 * (modules/ib_async_strict_*.c): the guest's /init loads it; a test that
 * wants it loads it here if it is not. 0 once its debugfs files are there.
 */
#define IBA_STRICT_DIR		"/sys/kernel/debug/ib_async_strict"

int iba_strict_available(void);

/* One of its counters (checked, violations, unchecked...), or -1. */
long iba_strict_counter(const char *name);

/* Dispatch @count events of @type on @port of @ibdev. 0 or -errno. */
int iba_storm(const char *ibdev, unsigned int type,
	      unsigned int port, unsigned long count);

const char *iba_type_str(uint32_t t);

/*
 * The 6.1 harness runs the test body even when FIXTURE_SETUP skipped; every
 * test body starts with this so a skipped setup never touches the device.
 */
/*
 * Clear CAP_IPC_LOCK from the effective set, so RLIMIT_MEMLOCK applies to
 * what the kernel charges this process's user for.
 */
int iba_drop_ipc_lock(void);

#define IBA_SKIPPED_IN_SETUP() do {		\
	if (_metadata->skip)			\
		return;				\
} while (0)

/* Check that each record's seq + count is the next record's seq. */
int iba_seq_continuous(const struct ib_async_event *ev, int n);

/*
 * Read the records of @rec_size bytes a nonblocking file holds into @buf,
 * up to @max: how many.
 */
int iba_read_recs(int fd, void *buf, size_t rec_size, int max);

/*
 * Whether @n records of @rec_size bytes, each starting with a struct
 * ib_async_event, number the stream from @first with no gap.
 */
int iba_seq_from(const void *recs, size_t rec_size, int n, uint64_t first);

/*
 * A stream of records read from one file, in order, as iba_stream_add()
 * walks it: every record's seq is the previous one's seq + count (no gap,
 * never backwards, so no record comes twice), an event counts 1, an
 * overflow record at least 1 and about no object, and the overflow
 * records' counts add up to what the file lost.
 */
struct iba_stream {
	uint64_t next;		/* the seq the next record must carry */
	uint64_t lost;		/* the overflow records' counts, summed */
	int recs;		/* records walked */
	int events;		/* ... of them events (not overflow, not state) */
	int overflows;
	int states;
	int bad;		/* the first record that broke a rule, or -1 */
	const char *why;	/* the rule it broke, or NULL */
};

void iba_stream_init(struct iba_stream *s, uint64_t first);

/*
 * Walk @n more records of @rec_size bytes (each starting with a struct
 * ib_async_event): 0, or -1 once a rule is broken (the first one stays in
 * @s->bad and @s->why; later records are still counted).
 */
int iba_stream_add(struct iba_stream *s, const void *recs, size_t rec_size,
		   int n);

/*
 * One blocking read() of a record, as a thread body: what ended it (the
 * result and errno) is left in the struct, to see what wakes a reader.
 */
struct iba_reader {
	int fd;
	ssize_t ret;
	int err;
};

void *iba_reader_run(void *arg);

#endif /* IBA_UTIL_H */
