/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driving the test-only event source (modules/ib_async_evsrc*): its
 * debugfs files, the ids it gives objects, and the affiliated event types
 * with the object each concerns.
 */
#ifndef IBA_EVSRC_H
#define IBA_EVSRC_H

#include <stdarg.h>

#include "iba_util.h"

#define IBA_EVSRC_KO	"/usr/lib/ib_async/test/ib_async_evsrc.ko"
#define IBA_EVSRC_DBG	"/sys/kernel/debug/ib_async_evsrc"
#define IBA_EVSRC_DIR	IBA_EVSRC_DBG "/evsrc0"

/* The contexts evsrc raises events from, as its raise file names them. */
static const char *const iba_evsrc_contexts[] = { "process", "softirq", "hardirq" };

/*
 * PREEMPT_RT runs every driver's interrupt handler in a thread, so no
 * event handler runs in hard-irq context there and evsrc refuses to fake
 * it (EOPNOTSUPP). Tests then use the contexts that exist.
 */
int iba_evsrc_rt(void);

unsigned int iba_evsrc_ncontexts(void);

/* The most atomic context evsrc offers here. */
const char *iba_evsrc_hard(void);

static const struct {
	uint32_t type;
	uint32_t obj;
} iba_evsrc_affiliated[] = {
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
__attribute__((format(printf, 2, 3)))
int iba_evsrc_write(const char *file, const char *fmt, ...);

/* Raise events on evsrc0 (its "raise" file's syntax): 0 or -errno. */
__attribute__((format(printf, 1, 2)))
int iba_evsrc_raise(const char *fmt, ...);

/*
 * Register another evsrc device, @name, and wait for its ib_async node:
 * 0 with @dev filled, or -1. For tests that unplug a device of their own.
 */
int iba_evsrc_add_dev(const char *name, struct iba_dev *dev);

/* evsrc's id of the newest object of a kind, or of the QP with @qpn. */
int iba_evsrc_find(const char *kind, unsigned int qpn);

/* The state evsrc holds for its WQ @id, or -1. */
int iba_evsrc_wq_state(int id);

/* Load the module if it is not, and say whether evsrc0 exists. */
int iba_evsrc_present(void);

/*
 * Find evsrc0's ib_async node (loading the module if need be) in @dev.
 * Returns NULL, or why a test using it must skip.
 */
const char *iba_evsrc_dev(struct iba_dev *dev);

/*
 * iba_evsrc_dev(), then its node opened for a test (read-write, nonblocking):
 * the fd; or -1, with *@why saying why the test must skip or, when
 * *@why is NULL, errno why open() failed.
 */
int iba_evsrc_open(struct iba_dev *dev, const char **why);

/*
 * iba_evsrc_open(), and then, if @feature is not 0, *@why = @lacking
 * unless evsrc0's ib_async offers IB_ASYNC_FEATURE_ @feature (the
 * descriptor is returned either way, for the fixture's teardown).
 */
int iba_evsrc_fixture(struct iba_dev *dev, uint64_t feature,
		      const char *lacking, const char **why);

#ifndef IBA_NO_HARNESS
/*
 * The setup the evsrc fixtures share (FIXTURE_SETUP only; @self has fd
 * and dev): self->fd on evsrc0's node, O_NONBLOCK, or the test skipped
 * without evsrc0 or without @feature (iba_evsrc_fixture()).
 */
#define IBA_EVSRC_FIXTURE_OPEN(self, feature, lacking) do {		\
	const char *iba_why_;						\
									\
	(self)->fd = iba_evsrc_fixture(&(self)->dev, (feature),		\
				       (lacking), &iba_why_);		\
	if (iba_why_)							\
		SKIP(return, "%s", iba_why_);				\
	ASSERT_LE(0, (self)->fd);					\
} while (0)
#endif

/*
 * On @fd, evsrc0's node: a PD, a CQ (user handle 0xc0, 8 entries) and a
 * UD QP (0x9b) on them, their handles in @pd, @cq and @qp, and evsrc's
 * id of the QP in @ev_qp, for raising its events. 0, the failing
 * command's -errno, or -1 when evsrc has no id for the QP.
 */
int iba_evsrc_ud_qp(int fd, uint32_t *pd, uint32_t *cq, uint32_t *qp,
		int *ev_qp);

#endif /* IBA_EVSRC_H */
