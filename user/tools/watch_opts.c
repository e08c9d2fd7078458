// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ib_async_watch command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>	/* isfinite() only: no -lm needed */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <infiniband/verbs.h>

#include "watch.h"
#include "../../include/ib_async_event_types.h"

#define TYPE_PREFIX "IBV_EVENT_"
#define PROG "ib_async_watch"

/*
 * rdma-core's names for enum ibv_event_type, which ib_async's types 0..20
 * equal; what they mean is ibv_event_type_str()'s to say. The names are
 * ib_async_event_types.h's, the tree's one list. Indexed by the uAPI's
 * values: the rdma-core headers this builds against may predate type 20.
 */
#define T(x, element) [IB_ASYNC_EV_##x] = TYPE_PREFIX #x,
static const char *const type_names[] = {
	IB_ASYNC_EVENT_TYPES(T)
};
#undef T
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

/* The types ib_async generates itself, from 0x10000 (uAPI header). */
static const char *own_type_name(uint32_t type)
{
	return type == IB_ASYNC_EV_OVERFLOW ? "OVERFLOW" : NULL;
}

const char *watch_type_name(uint32_t type)
{
	return type < NTYPES ? type_names[type] : own_type_name(type);
}

static int parse_number(const char *s, unsigned long long max,
			unsigned long long *out)
{
	char *end;

	/* strtoull would accept a sign or leading blanks */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return (*end || errno || *out > max) ? -1 : 0;
}

int watch_parse_type(const char *s, uint32_t *type)
{
	unsigned long long v;

	if (!parse_number(s, UINT32_MAX, &v)) {
		*type = (uint32_t)v;
		return 0;
	}
	if (!strncasecmp(s, TYPE_PREFIX, strlen(TYPE_PREFIX)))
		s += strlen(TYPE_PREFIX);
	for (size_t i = 0; i < NTYPES; i++) {
		if (!strcasecmp(s, type_names[i] + strlen(TYPE_PREFIX))) {
			*type = (uint32_t)i;
			return 0;
		}
	}
	return -1;
}

bool watch_type_selected(const struct watch_opts *o, uint32_t type)
{
	if (!o->ntypes || type == IB_ASYNC_EV_OVERFLOW)
		return true;
	for (size_t i = 0; i < o->ntypes; i++)
		if (o->types[i] == type)
			return true;
	return false;
}

bool watch_needs_channel(const struct watch_opts *o)
{
	return o->nports || o->coalesce || o->state;
}

int watch_type_mask(const struct watch_opts *o, uint64_t *mask, uint32_t *bad)
{
	*mask = 0;
	for (size_t i = 0; i < o->ntypes; i++) {
		if (o->types[i] == IB_ASYNC_EV_OVERFLOW)
			continue;
		if (o->types[i] > IB_ASYNC_EV_DEVICE_SPEED_CHANGE) {
			*bad = o->types[i];
			return -1;
		}
		*mask |= 1ULL << o->types[i];
	}
	return 0;
}

void watch_usage_hint(FILE *f)
{
	fprintf(f, "Try '%s --help' for more information.\n", PROG);
}

void watch_usage(FILE *f, const char *argv0)
{
	fprintf(f,
"Usage: %s [options]\n"
"Print RDMA asynchronous events from ib_async devices, one line each.\n"
"\n"
"  -d, --device NAME     watch RDMA device NAME (repeatable; default: all)\n"
"  -t, --type TYPE       only events of TYPE: PORT_ERR, IBV_EVENT_PORT_ERR\n"
"                        or a number (repeatable; default: all)\n"
"  -p, --port N          only events of port N, 0 for the whole device\n"
"                        (repeatable; default: all)\n"
"      --coalesce        one line for repeats of an event not read yet\n"
"                        (with its number of occurrences)\n"
"      --state           first one line per port with its state (and one\n"
"                        for the device), again after lost events\n"
"  -n, --count N         exit after N events\n"
"      --timeout SECONDS exit after SECONDS (status 3 if the events wanted\n"
"                        were not all seen)\n"
"  -q, --queue-len N     resize each device's event queue to N events\n"
"      --json            one JSON object per line\n"
"      --journal         send each event to systemd's journal, with\n"
"                        structured fields, instead of standard output\n"
"      --metrics FILE    keep Prometheus counters and port states in FILE\n"
"                        (replaced at most once a second)\n"
"      --follow          watch every device, also those added later, and\n"
"                        print their additions, removals and renames\n"
"  -h, --help            show this help\n", argv0);
}

/* Seconds, fractional allowed, to milliseconds. */
static int parse_timeout(const char *s, long long *ms)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v) || v > (double)INT_MAX)
		return -1;
	v *= 1000.0;
	*ms = (long long)v;
	if ((double)*ms < v)	/* round up: never stop early */
		(*ms)++;
	return 0;
}

static int add_device(struct watch_opts *o, const char *name)
{
	const char **p = realloc(o->devices, (o->ndevices + 1) * sizeof(*p));

	if (!p)
		return -1;
	o->devices = p;
	o->devices[o->ndevices++] = name;
	return 0;
}

/* A port once, however often it is given: one subscription each. */
static int add_port(struct watch_opts *o, const char *arg, FILE *err)
{
	unsigned long long v;

	if (parse_number(arg, UINT32_MAX, &v))
		return fprintf(err, "%s: invalid port: %s\n", PROG, arg), -1;
	for (size_t i = 0; i < o->nports; i++)
		if (o->ports[i] == v)
			return 0;
	if (o->nports == WATCH_MAX_FILTERS)
		return fprintf(err, "%s: too many --port filters\n", PROG), -1;
	o->ports[o->nports++] = (uint32_t)v;
	return 0;
}

static int parse_one(struct watch_opts *o, int c, const char *arg, FILE *err)
{
	unsigned long long v;

	switch (c) {
	case 'd':
		if (add_device(o, arg))
			return fprintf(err, "%s: out of memory\n", PROG), -1;
		return 0;
	case 't':
		if (o->ntypes == WATCH_MAX_FILTERS)
			return fprintf(err, "%s: too many --type filters\n", PROG), -1;
		if (watch_parse_type(arg, &o->types[o->ntypes]))
			return fprintf(err, "%s: unknown event type: %s\n", PROG, arg), -1;
		o->ntypes++;
		return 0;
	case 'p':
		return add_port(o, arg, err);
	case 'C':
		o->coalesce = true;
		return 0;
	case 'n':
		if (parse_number(arg, ULLONG_MAX, &v) || !v)
			return fprintf(err, "%s: invalid count: %s\n", PROG, arg), -1;
		o->count = v;
		return 0;
	case 'T':
		if (parse_timeout(arg, &o->timeout_ms))
			return fprintf(err, "%s: invalid timeout: %s\n", PROG, arg), -1;
		return 0;
	case 'q':
		if (parse_number(arg, UINT32_MAX, &v) || !v)
			return fprintf(err, "%s: invalid queue length: %s\n", PROG, arg), -1;
		o->queue_len = (unsigned int)v;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	case 'J':
		o->journal = true;
		return 0;
	case 'M':
		if (!*arg)
			return fprintf(err, "%s: empty --metrics file name\n", PROG), -1;
		o->metrics = arg;
		return 0;
	case 'F':
		o->follow = true;
		return 0;
	case 'S':
		o->state = true;
		return 0;
	case 'h':
		o->help = true;
		return 0;
	default:	/* getopt already said what was wrong */
		return -1;
	}
}

int watch_parse_args(int argc, char **argv, struct watch_opts *o, FILE *err)
{
	static const struct option longopts[] = {
		{ "device",	required_argument, NULL, 'd' },
		{ "type",	required_argument, NULL, 't' },
		{ "port",	required_argument, NULL, 'p' },
		{ "coalesce",	no_argument,	   NULL, 'C' },
		{ "count",	required_argument, NULL, 'n' },
		{ "timeout",	required_argument, NULL, 'T' },
		{ "queue-len",	required_argument, NULL, 'q' },
		{ "json",	no_argument,	   NULL, 'j' },
		{ "journal",	no_argument,	   NULL, 'J' },
		{ "metrics",	required_argument, NULL, 'M' },
		{ "follow",	no_argument,	   NULL, 'F' },
		{ "state",	no_argument,	   NULL, 'S' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout_ms = -1;
	optind = 0;	/* GNU: full re-initialisation, so tests can reparse */
	opterr = 1;
	while ((c = getopt_long(argc, argv, "d:t:p:n:q:h", longopts, NULL)) != -1)
		if (parse_one(o, c, optarg, err))
			return -1;
	if (optind < argc) {
		fprintf(err, "%s: unexpected argument: %s\n", PROG,
			argv[optind]);
		return -1;
	}
	/* a name can leave and another device take it: follow all or -d */
	if (o->follow && o->ndevices) {
		fprintf(err, "%s: --follow watches every device: no --device\n",
			PROG);
		return -1;
	}
	return 0;
}

void watch_opts_free(struct watch_opts *o)
{
	free(o->devices);
	o->devices = NULL;
	o->ndevices = 0;
}
