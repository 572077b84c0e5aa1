/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generic netlink family "ktask": names and numbers.
 *
 * These mirror the kernel's include/uapi/linux/ktask.h (see
 * docs/interface.md).  They are part of the ABI, so they never change;
 * keep this copy identical to the kernel's.  ktaskctl carries its own
 * copy because the installed kernel headers predate ktask.
 */
#ifndef KTASKCTL_KTASK_UAPI_H
#define KTASKCTL_KTASK_UAPI_H

#define KTASK_FAMILY_NAME	"ktask"
#define KTASK_FAMILY_VERSION	1
#define KTASK_MCGRP_EVENTS	"events"

enum {
	KTASK_CMD_UNSPEC = 0,
	KTASK_CMD_EVENT = 1,		/* multicast: one per finished task */
	KTASK_CMD_GET_CONFIG = 2,	/* anyone */
	KTASK_CMD_SET_CONFIG = 3,	/* CAP_SYS_ADMIN */

	__KTASK_CMD_MAX,
	KTASK_CMD_MAX = __KTASK_CMD_MAX - 1
};

enum {
	KTASK_A_UNSPEC = 0,
	KTASK_A_FUNC = 1,		/* string: thread function (%ps) */
	KTASK_A_SIZE = 2,		/* u64: task size in units */
	KTASK_A_THREADS = 3,		/* u32: caller + helpers started */
	KTASK_A_CHUNKS = 4,		/* u32: chunks run */
	KTASK_A_ELAPSED_NS = 5,		/* u64 */
	KTASK_A_ERROR = 6,		/* s32: 0 or negative errno */
	KTASK_A_UNDONE = 7,		/* u64: units undone */
	KTASK_A_MAX_THREADS = 8,	/* u32: default kc_max_threads */
	KTASK_A_HELPER_NICE = 9,	/* s32: -20..19 */
	KTASK_A_RENICE = 10,		/* u8: 0 or 1 */
	KTASK_A_PAD = 11,		/* aligns the u64 attributes */

	__KTASK_A_MAX,
	KTASK_A_MAX = __KTASK_A_MAX - 1
};

#endif
