/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_async_watch's outputs for the engines a host already runs: systemd's
 * journal (--journal) and a Prometheus textfile (--metrics).
 */
#ifndef IB_ASYNC_WATCH_EXPORT_H
#define IB_ASYNC_WATCH_EXPORT_H

#include "watch.h"
#include "watch_follow.h"

/* Whether a journal listens: 0, or a negative errno. */
int watch_journal_check(void);

/*
 * Send one record, read from device dev, to the journal, with the fields
 * of ib_async_watch(1) (x: the channel's record, or NULL). Returns 0, or
 * a negative errno.
 */
int watch_journal_send(const char *dev, const struct ib_async_event *rec,
		       const struct ib_async_chan_event *x,
		       const struct watch_clock *now);

/* Send a state record of --state, with its fields. As watch_journal_send(). */
int watch_journal_state(const char *dev,
			const struct ib_async_chan_state_event *s,
			const struct watch_clock *now);

/*
 * Send a device line of --follow: device dev added (arg: its node),
 * removed, renamed (arg: its former name), or a netdev (arg) attached to
 * or detached from its port. As watch_journal_send().
 */
int watch_journal_device(const char *dev, enum watch_dev_change c,
			 const char *arg, unsigned int port,
			 const struct watch_clock *now);

struct watch_metrics;

/* Counters to be kept in path (path.tmp renamed over it); NULL: ENOMEM. */
struct watch_metrics *watch_metrics_new(const char *path);
void watch_metrics_free(struct watch_metrics *m);

/* A device with nports ports: its index, or -1 (ENOMEM). */
int watch_metrics_add_device(struct watch_metrics *m, const char *name,
			     unsigned int nports);

/*
 * A removed device's series leave the file (a device that comes back
 * starts again from zero, a counter reset to Prometheus); a renamed
 * one's carry the new name from then on.
 */
void watch_metrics_remove_device(struct watch_metrics *m, int dev);
int watch_metrics_rename_device(struct watch_metrics *m, int dev,
				const char *name);

/* A port's enum ibv_port_state; -1: unknown (the gauge left out). */
void watch_metrics_port_state(struct watch_metrics *m, int dev,
			      unsigned int port, int state);

/*
 * Count a record of device dev: an overflow record's events as lost, any
 * other as occurrences events of its port and type (1 but for a
 * coalesced channel record). Returns -1 if out of memory.
 */
int watch_metrics_record(struct watch_metrics *m, int dev,
			 const struct ib_async_event *rec,
			 unsigned long long occurrences,
			 const struct watch_clock *now);

/*
 * Milliseconds until a write is due (what changed, a second after the
 * last write); -1: nothing to write.
 */
long long watch_metrics_due(const struct watch_metrics *m);

/*
 * Write the file if a write is due, or, with force, if anything changed
 * since the last. Returns 0, or -1 with errno.
 */
int watch_metrics_flush(struct watch_metrics *m, bool force);

#endif /* IB_ASYNC_WATCH_EXPORT_H */
