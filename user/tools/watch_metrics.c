// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib_async_watch --metrics FILE: counters in the text exposition format
 * node_exporter's textfile collector reads (it parses that format only;
 * the file ends with OpenMetrics' "# EOF", a comment to the collector).
 * The file is written whole to FILE.tmp and renamed over FILE, so a
 * scrape never reads half of it, and at most once a second, so an event
 * storm costs one write a second; the run loop's timer writes the last
 * state of a burst, and the exit writes what is left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch_export.h"

#define WRITE_INTERVAL_MS 1000
#define NSEC_PER_SEC 1000000000LL

struct count {
	unsigned int port;
	uint32_t type;
	unsigned long long n;
};

struct dev_metrics {
	char *name;		/* NULL: removed, left out of the file */
	unsigned int nports;
	int *state;		/* [1..nports]; -1: unknown */
	struct count *counts;	/* in the order first seen */
	size_t ncounts;
	unsigned long long lost;
	double last_event;	/* UTC seconds; 0: none yet */
};

struct watch_metrics {
	char *path, *tmp;
	struct dev_metrics *devs;
	size_t ndevs;
	bool dirty;
	long long written_ms;	/* monotonic; -1: never */
};

static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

struct watch_metrics *watch_metrics_new(const char *path)
{
	struct watch_metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->path = strdup(path);
	if (m->path && asprintf(&m->tmp, "%s.tmp", path) < 0)
		m->tmp = NULL;
	if (!m->path || !m->tmp) {
		watch_metrics_free(m);
		return NULL;
	}
	m->dirty = true;	/* the first write says what is watched */
	m->written_ms = -1;
	return m;
}

void watch_metrics_free(struct watch_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ndevs; i++) {
		free(m->devs[i].name);
		free(m->devs[i].state);
		free(m->devs[i].counts);
	}
	free(m->devs);
	free(m->path);
	free(m->tmp);
	free(m);
}

int watch_metrics_add_device(struct watch_metrics *m, const char *name,
			     unsigned int nports)
{
	struct dev_metrics *d, *devs;

	devs = realloc(m->devs, (m->ndevs + 1) * sizeof(*devs));
	if (!devs)
		return -1;
	m->devs = devs;
	d = &devs[m->ndevs];
	*d = (struct dev_metrics){ .nports = nports };
	d->name = strdup(name);
	d->state = malloc((nports + 1) * sizeof(*d->state));
	if (!d->name || !d->state) {
		free(d->name);
		free(d->state);
		return -1;
	}
	for (unsigned int p = 0; p <= nports; p++)
		d->state[p] = -1;
	m->dirty = true;
	return (int)m->ndevs++;
}

void watch_metrics_remove_device(struct watch_metrics *m, int dev)
{
	struct dev_metrics *d = &m->devs[dev];

	free(d->name);
	free(d->counts);
	/* the slot stays: other devices keep their indexes */
	*d = (struct dev_metrics){ .state = d->state };
	m->dirty = true;
}

int watch_metrics_rename_device(struct watch_metrics *m, int dev,
				const char *name)
{
	char *s = strdup(name);

	if (!s)
		return -1;
	free(m->devs[dev].name);
	m->devs[dev].name = s;
	m->dirty = true;
	return 0;
}

void watch_metrics_port_state(struct watch_metrics *m, int dev,
			      unsigned int port, int state)
{
	struct dev_metrics *d = &m->devs[dev];

	if (port < 1 || port > d->nports || d->state[port] == state)
		return;
	d->state[port] = state;
	m->dirty = true;
}

static struct count *find_count(struct dev_metrics *d, unsigned int port,
				uint32_t type)
{
	struct count *c;

	for (size_t i = 0; i < d->ncounts; i++)
		if (d->counts[i].port == port && d->counts[i].type == type)
			return &d->counts[i];
	c = realloc(d->counts, (d->ncounts + 1) * sizeof(*c));
	if (!c)
		return NULL;
	d->counts = c;
	c = &c[d->ncounts++];
	*c = (struct count){ .port = port, .type = type };
	return c;
}

/* The record's UTC time, as the text line's (watch_output.c) */
static double utc_seconds(uint64_t stamp_ns, const struct watch_clock *now)
{
	long long real = now->real.tv_sec * NSEC_PER_SEC + now->real.tv_nsec;
	long long mono = now->mono.tv_sec * NSEC_PER_SEC + now->mono.tv_nsec;

	return (double)(real - (mono - (long long)stamp_ns)) / 1e9;
}

int watch_metrics_record(struct watch_metrics *m, int dev,
			 const struct ib_async_event *r,
			 unsigned long long occurrences,
			 const struct watch_clock *now)
{
	struct dev_metrics *d = &m->devs[dev];
	struct count *c;

	m->dirty = true;
	d->last_event = utc_seconds(r->timestamp_ns, now);
	if (r->event_type == IB_ASYNC_EV_OVERFLOW) {
		d->lost += r->count;
		return 0;
	}
	c = find_count(d, r->port_num, r->event_type);
	if (!c)
		return -1;
	c->n += occurrences;
	return 0;
}

long long watch_metrics_due(const struct watch_metrics *m)
{
	long long left;

	if (!m->dirty)
		return -1;
	if (m->written_ms < 0)
		return 0;
	left = m->written_ms + WRITE_INTERVAL_MS - mono_ms();
	return left > 0 ? left : 0;
}

/* A label value: device names come from sysfs, escape anyway. */
static void put_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_events(FILE *f, const struct watch_metrics *m)
{
	family(f, "ib_async_events_total", "counter",
	       "RDMA asynchronous events read, by device, port (0: the device's or an object's) and event type.");
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct dev_metrics *d = &m->devs[i];

		for (size_t j = 0; d->name && j < d->ncounts; j++) {
			const char *name = watch_type_name(d->counts[j].type);

			fputs("ib_async_events_total{device=", f);
			put_label(f, d->name);
			fprintf(f, ",port=\"%u\",event=\"", d->counts[j].port);
			if (name)
				fputs(name, f);
			else
				fprintf(f, "IBV_EVENT_%u", d->counts[j].type);
			fprintf(f, "\"} %llu\n", d->counts[j].n);
		}
	}
}

static void put_device_values(FILE *f, const struct watch_metrics *m)
{
	family(f, "ib_async_events_lost_total", "counter",
	       "Events the device's queue could not hold for this watcher (overflow records).");
	for (size_t i = 0; i < m->ndevs; i++) {
		if (!m->devs[i].name)
			continue;
		fputs("ib_async_events_lost_total{device=", f);
		put_label(f, m->devs[i].name);
		fprintf(f, "} %llu\n", m->devs[i].lost);
	}
	family(f, "ib_async_last_event_timestamp_seconds", "gauge",
	       "UTC time of the last event or loss read from the device.");
	for (size_t i = 0; i < m->ndevs; i++) {
		if (!m->devs[i].name || !m->devs[i].last_event)
			continue;
		fputs("ib_async_last_event_timestamp_seconds{device=", f);
		put_label(f, m->devs[i].name);
		fprintf(f, "} %.6f\n", m->devs[i].last_event);
	}
	family(f, "ib_async_port_state", "gauge",
	       "Port state as enum ibv_port_state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER.");
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct dev_metrics *d = &m->devs[i];

		for (unsigned int p = 1; d->name && p <= d->nports; p++) {
			if (d->state[p] < 0)
				continue;
			fputs("ib_async_port_state{device=", f);
			put_label(f, d->name);
			fprintf(f, ",port=\"%u\"} %d\n", p, d->state[p]);
		}
	}
}

static int write_file(struct watch_metrics *m)
{
	FILE *f = fopen(m->tmp, "w");
	int err;

	if (!f)
		return -1;
	put_events(f, m);
	put_device_values(f, m);
	fputs("# EOF\n", f);
	/* both run: the stream is closed whatever ferror() says */
	if (!(ferror(f) | fclose(f)) && !rename(m->tmp, m->path))
		return 0;
	err = errno;
	unlink(m->tmp);
	errno = err;
	return -1;
}

int watch_metrics_flush(struct watch_metrics *m, bool force)
{
	long long due = watch_metrics_due(m);

	if (due < 0 || (due > 0 && !force))
		return 0;
	/* a failed write is tried again a second later, not at once */
	m->written_ms = mono_ms();
	if (write_file(m))
		return -1;
	m->dirty = false;
	return 0;
}
