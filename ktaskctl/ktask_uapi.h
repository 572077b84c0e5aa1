/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ktaskctl: a copy of the kernel's include/uapi/linux/ktask.h (added by
 * patch 0012 of kernel/patches), as installed kernel headers predate ktask.
 * Do not edit it here: change the kernel's, then copy it below this note.
 * The meson test 'uapi' (tests/check_uapi.py) fails if anything but this
 * note differs.
 */
/*
 * Generic netlink family "ktask": one event per finished task on the
 * "events" multicast group, and the framework's settings.
 *
 * Documentation/netlink/specs/ktask.yaml describes the family.
 */
#ifndef _UAPI_LINUX_KTASK_H
#define _UAPI_LINUX_KTASK_H

#define KTASK_FAMILY_NAME		"ktask"
#define KTASK_FAMILY_VERSION		1
#define KTASK_MCGRP_EVENTS		"events"

enum {
	KTASK_A_UNSPEC,
	KTASK_A_FUNC,		/* string: thread function symbol */
	KTASK_A_SIZE,		/* u64: task size in units */
	KTASK_A_THREADS,	/* u32: threads used, the caller included */
	KTASK_A_CHUNKS,		/* u32: chunks run */
	KTASK_A_ELAPSED_NS,	/* u64 */
	KTASK_A_ERROR,		/* s32: 0 or a negative errno */
	KTASK_A_UNDONE,		/* u64: units undone */
	KTASK_A_MAX_THREADS,	/* u32: default maximum threads per task */
	KTASK_A_HELPER_NICE,	/* s32: helpers' nice level */
	KTASK_A_RENICE,		/* u8: waiting callers lend their nice level */
	KTASK_A_PAD,
	KTASK_A_CPU_NS,		/* u64: CPU time of every thread of the task */

	__KTASK_A_MAX,
	KTASK_A_MAX = (__KTASK_A_MAX - 1)
};

enum {
	KTASK_CMD_UNSPEC,
	KTASK_CMD_EVENT,	/* notification: a task finished */
	KTASK_CMD_GET_CONFIG,
	KTASK_CMD_SET_CONFIG,	/* needs CAP_SYS_ADMIN */

	__KTASK_CMD_MAX,
	KTASK_CMD_MAX = (__KTASK_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_KTASK_H */
