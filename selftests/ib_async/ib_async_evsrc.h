/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driving the test-only event source (modules/ib_async_evsrc*): its
 * debugfs files, the ids it gives objects, and the affiliated event types
 * with the object each concerns.
 */
#ifndef IB_ASYNC_EVSRC_H
#define IB_ASYNC_EVSRC_H

#include <stdarg.h>

#include "ib_async_util.h"

#define EVSRC_KO	"/usr/lib/ib_async/test/ib_async_evsrc.ko"
#define EVSRC_DBG	"/sys/kernel/debug/ib_async_evsrc"
#define EVSRC_DIR	EVSRC_DBG "/evsrc0"

/* The contexts evsrc raises events from, as its raise file names them. */
static const char *const contexts[] = { "process", "softirq", "hardirq" };

/*
 * PREEMPT_RT runs every driver's interrupt handler in a thread, so no
 * event handler runs in hard-irq context there and evsrc refuses to fake
 * it (EOPNOTSUPP). Tests then use the contexts that exist.
 */
static inline int evsrc_rt(void)
{
	char buf[8] = "";
	FILE *f = fopen("/sys/kernel/realtime", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return buf[0] == '1';
}

static inline unsigned int evsrc_ncontexts(void)
{
	return evsrc_rt() ? 2 : 3;
}

/* The most atomic context evsrc offers here. */
static inline const char *evsrc_hard(void)
{
	return evsrc_rt() ? "softirq" : "hardirq";
}

static const struct {
	uint32_t type;
	uint32_t obj;
} affiliated[] = {
	{ IB_ASYNC_EV_CQ_ERR, IB_ASYNC_OBJ_CQ },
	{ IB_ASYNC_EV_QP_FATAL, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_QP_REQ_ERR, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_QP_ACCESS_ERR, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_COMM_EST, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_SQ_DRAINED, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_PATH_MIG, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_PATH_MIG_ERR, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_QP_LAST_WQE_REACHED, IB_ASYNC_OBJ_QP },
	{ IB_ASYNC_EV_SRQ_ERR, IB_ASYNC_OBJ_SRQ },
	{ IB_ASYNC_EV_SRQ_LIMIT_REACHED, IB_ASYNC_OBJ_SRQ },
	{ IB_ASYNC_EV_WQ_FATAL, IB_ASYNC_OBJ_WQ },
};

/* printf into one of evsrc0's debugfs files: 0 or -errno. */
static inline __attribute__((format(printf, 2, 3)))
int evsrc_write(const char *file, const char *fmt, ...)
{
	char path[256], buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), EVSRC_DIR "/%s", file);
	return iba_write_file(path, buf, n, 0);
}

/* Raise events on evsrc0 (its "raise" file's syntax): 0 or -errno. */
static inline __attribute__((format(printf, 1, 2)))
int evsrc_raise(const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return evsrc_write("raise", "%s", buf);
}

/*
 * Register another evsrc device, @name, and wait for its ib_async node:
 * 0 with @dev filled, or -1. For tests that unplug a device of their own.
 */
static inline int evsrc_add_dev(const char *name, struct iba_dev *dev)
{
	uint64_t t0 = iba_now_ms();
	int found;

	if (iba_write_file(EVSRC_DBG "/add", name, strlen(name), 0))
		return -1;
	setenv("IB_ASYNC_IBDEV", name, 1);
	while (!(found = !iba_find_dev(dev) && !strcmp(dev->ibdev, name) &&
		 !access(dev->node, F_OK)) && iba_now_ms() - t0 < 10000)
		iba_sleep_ms(20);
	setenv("IB_ASYNC_IBDEV", "evsrc0", 1);
	return found ? 0 : -1;
}

/* evsrc's id of the newest object of a kind, or of the QP with @qpn. */
static inline int evsrc_find(const char *kind, unsigned int qpn)
{
	char line[256], k[16];
	unsigned int id, n;
	int best = -1;
	FILE *f = fopen(EVSRC_DIR "/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %u", k, &id) != 2 || strcmp(k, kind))
			continue;
		if (qpn) {
			char *p = strstr(line, "qpn=");

			if (p && sscanf(p, "qpn=%u", &n) == 1 && n == qpn)
				best = id;
		} else if ((int)id > best) {
			best = id;
		}
	}
	fclose(f);
	return best;
}

/* The state evsrc holds for its WQ @id, or -1. */
static inline int evsrc_wq_state(int id)
{
	char line[256], k[16];
	unsigned int n, state;
	int ret = -1;
	FILE *f = fopen(EVSRC_DIR "/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "state=");

		if (sscanf(line, "%15s %u", k, &n) == 2 && !strcmp(k, "wq") &&
		    (int)n == id && p && sscanf(p, "state=%u", &state) == 1)
			ret = state;
	}
	fclose(f);
	return ret;
}

/* Load the module if it is not, and say whether evsrc0 exists. */
static inline int evsrc_present(void)
{
	if (access(EVSRC_DIR, F_OK))
		iba_load_module("ib_async_evsrc");
	return access(EVSRC_DIR, F_OK) == 0;
}

/*
 * Find evsrc0's ib_async node (loading the module if need be) in @dev.
 * Returns NULL, or why a test using it must skip.
 */
static inline const char *evsrc_dev(struct iba_dev *dev)
{
	if (!evsrc_present())
		return "no evsrc0 test device (" EVSRC_KO ")";
	setenv("IB_ASYNC_IBDEV", "evsrc0", 1);
	if (iba_find_dev(dev) || strcmp(dev->ibdev, "evsrc0"))
		return "no ib_async node for evsrc0";
	return NULL;
}

#endif /* IB_ASYNC_EVSRC_H */
