/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The generic netlink family "ktask" through libnl-genl: resolving the
 * family and its "events" group, GET_CONFIG/SET_CONFIG, and receiving
 * events.  Functions return 0 or a negative errno; the kernel's extended
 * ack message, if any, is kept for ktask_nl_report().
 */
#ifndef KTASKCTL_NETLINK_H
#define KTASKCTL_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

struct ktask_nl;

struct ktask_config {
	bool has_max_threads;
	uint32_t max_threads;
	bool has_helper_nice;
	int32_t helper_nice;
	bool has_renice;
	bool renice;
};

struct ktask_event {
	bool has_func, has_size, has_threads, has_chunks, has_elapsed_ns,
	     has_cpu_ns, has_error, has_undone;
	const char *func;		/* valid during the callback only */
	uint64_t size;
	uint32_t threads;
	uint32_t chunks;
	uint64_t elapsed_ns;
	uint64_t cpu_ns;
	int32_t error;
	uint64_t undone;
};

/*
 * Connects and resolves the family.  -ENOENT: the family does not exist,
 * i.e. the kernel has no ktask.
 */
int ktask_nl_open(struct ktask_nl **out);
void ktask_nl_close(struct ktask_nl *nl);

int ktask_nl_get_config(struct ktask_nl *nl, struct ktask_config *config);
/* Sends only the fields marked has_*; the kernel applies all or none. */
int ktask_nl_set_config(struct ktask_nl *nl, const struct ktask_config *config);

/* -ENOENT: the family has no "events" group (the caller says so). */
int ktask_nl_subscribe_events(struct ktask_nl *nl);

/* Return false to stop receiving. */
typedef bool (*ktask_event_fn)(const struct ktask_event *event, void *arg);

/*
 * Receives events until fn returns false or an error occurs.  Lost events
 * (receive buffer overruns) are reported through lost() and receiving
 * goes on.
 */
int ktask_nl_receive_events(struct ktask_nl *nl, ktask_event_fn fn,
			    void (*lost)(void *arg), void *arg);

/* "ktaskctl: <what>: ..." for an error returned above. */
void ktask_nl_report(struct ktask_nl *nl, const char *what, int err);

/*
 * The parsers behind ktask_nl_get_config() and ktask_nl_receive_events(),
 * for host tests to feed messages built in memory.  0, -EINVAL (an
 * attribute of the wrong size) or, for events, -ENOMSG (not an event).
 */
struct nlmsghdr;
int ktask_nl_parse_config(struct nlmsghdr *nlh, struct ktask_config *config);
int ktask_nl_parse_event(struct nlmsghdr *nlh, struct ktask_event *event);

#endif
