// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for netlink.c's attribute parsing: messages of the family
 * "ktask" are built in memory with libnl and handed to the parsers that
 * monitor and get use, so no kernel is needed.  Prints TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "ktask_uapi.h"
#include "netlink.h"
#include "tap.h"

/* Any id: the parsers look at the command and attributes only. */
#define FAMILY_ID	0x20

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, FAMILY_ID, 0,
				 0, cmd, KTASK_FAMILY_VERSION)) {
		fprintf(stderr, "test_netlink: cannot build a message\n");
		exit(1);
	}
	return msg;
}

static void test_event(void)
{
	struct nl_msg *msg = new_msg(KTASK_CMD_EVENT);
	struct ktask_event ev;
	int ret;

	nla_put_string(msg, KTASK_A_FUNC, "ktask_synth_thread");
	nla_put_u64(msg, KTASK_A_SIZE, 5000);
	nla_put_u32(msg, KTASK_A_THREADS, UINT32_MAX);
	nla_put_u32(msg, KTASK_A_CHUNKS, 7);
	nla_put_u64(msg, KTASK_A_ELAPSED_NS, 123456789);
	nla_put_u64(msg, KTASK_A_CPU_NS, 234567890);
	nla_put_s32(msg, KTASK_A_ERROR, -ENOSPC);
	nla_put_u64(msg, KTASK_A_UNDONE, 4999);
	ret = ktask_nl_parse_event(nlmsg_hdr(msg), &ev);
	check(ret == 0, "event: parses");
	check(ev.has_func && !strcmp(ev.func, "ktask_synth_thread"),
	      "event: func");
	check(ev.has_size && ev.size == 5000, "event: size (u64)");
	check(ev.has_threads && ev.threads == UINT32_MAX,
	      "event: threads (u32) stays unsigned");
	check(ev.has_chunks && ev.chunks == 7, "event: chunks (u32)");
	check(ev.has_elapsed_ns && ev.elapsed_ns == 123456789,
	      "event: elapsed_ns (u64)");
	check(ev.has_cpu_ns && ev.cpu_ns == 234567890, "event: cpu_ns (u64)");
	check(ev.has_error && ev.error == -ENOSPC,
	      "event: error (s32) is negative: %d", (int)ev.error);
	check(ev.has_undone && ev.undone == 4999, "event: undone (u64)");
	nlmsg_free(msg);

	msg = new_msg(KTASK_CMD_EVENT);
	nla_put_u64(msg, KTASK_A_SIZE, 1);
	ret = ktask_nl_parse_event(nlmsg_hdr(msg), &ev);
	check(ret == 0 && ev.has_size && !ev.has_error && !ev.has_func,
	      "event: attributes left out are marked absent");
	nlmsg_free(msg);

	/* A 2-byte s32 must fail the policy, not be read past its end. */
	msg = new_msg(KTASK_CMD_EVENT);
	nla_put_u16(msg, KTASK_A_ERROR, 5);
	check(ktask_nl_parse_event(nlmsg_hdr(msg), &ev) == -EINVAL,
	      "event: a short error attribute is rejected");
	nlmsg_free(msg);

	msg = new_msg(KTASK_CMD_GET_CONFIG);
	nla_put_s32(msg, KTASK_A_ERROR, -1);
	check(ktask_nl_parse_event(nlmsg_hdr(msg), &ev) == -ENOMSG,
	      "event: another command is not an event");
	nlmsg_free(msg);
}

static void test_config(void)
{
	struct nl_msg *msg = new_msg(KTASK_CMD_GET_CONFIG);
	struct ktask_config c;
	int ret;

	nla_put_u32(msg, KTASK_A_MAX_THREADS, 4);
	nla_put_s32(msg, KTASK_A_HELPER_NICE, -20);
	nla_put_u8(msg, KTASK_A_RENICE, 1);
	ret = ktask_nl_parse_config(nlmsg_hdr(msg), &c);
	check(ret == 0, "config: parses");
	check(c.has_max_threads && c.max_threads == 4,
	      "config: max_threads (u32)");
	check(c.has_helper_nice && c.helper_nice == -20,
	      "config: helper_nice (s32) is negative: %d", (int)c.helper_nice);
	check(c.has_renice && c.renice, "config: renice (u8)");
	nlmsg_free(msg);

	msg = new_msg(KTASK_CMD_GET_CONFIG);
	nla_put_s32(msg, KTASK_A_HELPER_NICE, 19);
	ret = ktask_nl_parse_config(nlmsg_hdr(msg), &c);
	check(ret == 0 && c.has_helper_nice && c.helper_nice == 19 &&
	      !c.has_max_threads && !c.has_renice,
	      "config: only what the kernel sent is marked present");
	nlmsg_free(msg);

	msg = new_msg(KTASK_CMD_GET_CONFIG);
	nla_put_u8(msg, KTASK_A_HELPER_NICE, 5);
	check(ktask_nl_parse_config(nlmsg_hdr(msg), &c) == -EINVAL,
	      "config: a short helper_nice attribute is rejected");
	nlmsg_free(msg);
}

int main(void)
{
	test_event();
	test_config();
	return tap_done();
}
