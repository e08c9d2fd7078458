/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* ib_async_watch: option parsing and formatting, apart for unit tests. */
#ifndef IB_ASYNC_WATCH_H
#define IB_ASYNC_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <rdma/ib_async.h>

/* Exit statuses, documented in ib_async_watch(1). */
enum {
	WATCH_EXIT_OK		= 0,
	WATCH_EXIT_ERROR	= 1,
	WATCH_EXIT_USAGE	= 2,
	WATCH_EXIT_TIMEOUT	= 3,
};

#define WATCH_MAX_FILTERS 64

struct watch_opts {
	const char **devices;		/* -d, in order given; argv storage */
	size_t ndevices;
	uint32_t types[WATCH_MAX_FILTERS]; /* -t; none given: all types */
	size_t ntypes;
	uint32_t ports[WATCH_MAX_FILTERS]; /* -p, once each; none: all ports */
	size_t nports;
	bool coalesce;			/* --coalesce */
	unsigned long long count;	/* -n; 0: no limit */
	long long timeout_ms;		/* --timeout; -1: none */
	unsigned int queue_len;		/* -q; 0: leave as opened */
	bool json;
	bool journal;			/* --journal: to systemd's journal */
	const char *metrics;		/* --metrics FILE; argv storage */
	bool follow;			/* --follow: devices come and go */
	bool state;			/* --state: ports' state records */
	bool help;
};

/*
 * Parse argv into *o. Returns 0, or -1 after writing a message to err
 * (usage error). o->devices is allocated; release with watch_opts_free().
 */
int watch_parse_args(int argc, char **argv, struct watch_opts *o, FILE *err);
void watch_opts_free(struct watch_opts *o);
void watch_usage(FILE *f, const char *argv0);
void watch_usage_hint(FILE *f);

/*
 * An event type from "PORT_ERR", "IBV_EVENT_PORT_ERR" (any case) or a
 * number (decimal or 0x hex). Returns 0, or -1 if not recognised.
 */
int watch_parse_type(const char *s, uint32_t *type);

/*
 * "IBV_EVENT_PORT_ERR", or "OVERFLOW" for IB_ASYNC_EV_OVERFLOW; NULL for a
 * type this tool does not know.
 */
const char *watch_type_name(uint32_t type);

/* "port", "qp"... for a record's obj_type; "unknown" if not one of ours. */
const char *watch_obj_name(uint32_t obj_type);

/* Whether a record passes the -t filters (overflow records always do). */
bool watch_type_selected(const struct watch_opts *o, uint32_t type);

/*
 * Whether the options can only be met by an event channel: --port,
 * --coalesce or --state. (-t alone is met by one where the kernel has
 * them.)
 */
bool watch_needs_channel(const struct watch_opts *o);

/*
 * The -t types as a subscription's type mask (bit N: type N; OVERFLOW,
 * which a channel always reports, adds none). Returns 0, or -1 with the
 * first type a subscription cannot name (above 20) in *bad.
 */
int watch_type_mask(const struct watch_opts *o, uint64_t *mask,
		    uint32_t *bad);

/* Clocks sampled together, to turn a record's monotonic time into UTC. */
struct watch_clock {
	struct timespec mono;
	struct timespec real;
};

/*
 * One output line (with '\n') for rec read from device dev. Returns the
 * length, or -1 if buf is too small.
 */
int watch_format(char *buf, size_t len, const char *dev,
		 const struct ib_async_event *rec,
		 const struct watch_clock *now, bool json);

/* The same for a record of an event channel, with its cookie and counts. */
int watch_format_chan(char *buf, size_t len, const char *dev,
		      const struct ib_async_chan_event *rec,
		      const struct watch_clock *now, bool json);

/*
 * The same for a state record (IB_ASYNC_EV_STATE) of a state channel:
 * the port's state (or the device's, port 0) where events have their
 * type. Other records of such a channel go to watch_format_chan().
 */
int watch_format_state(char *buf, size_t len, const char *dev,
		       const struct ib_async_chan_state_event *rec,
		       const struct watch_clock *now, bool json);

/* Names as ibv_devinfo prints them; NULL for a value it does not know. */
const char *watch_phys_state_name(unsigned int phys_state);
const char *watch_speed_name(unsigned int active_speed);
const char *watch_width_name(unsigned int active_width);

#endif /* IB_ASYNC_WATCH_H */
