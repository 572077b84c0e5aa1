// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "ktask_uapi.h"
#include "netlink.h"
#include "util.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Events can come in bursts (one per task); don't drop them needlessly. */
#define EVENT_RCVBUF	(1 << 20)

struct ktask_nl {
	struct nl_sock *sock;
	int family;
	char extack[256];	/* the kernel's message for the last error */
};

/* libnl folds errnos into its own codes; map back for strerror(). */
static int nle_to_errno(int nle)
{
	switch (abs(nle)) {
	case NLE_INTR:		return EINTR;
	case NLE_BAD_SOCK:	return EBADF;
	case NLE_AGAIN:		return EAGAIN;
	case NLE_NOMEM:		return ENOMEM;
	case NLE_EXIST:		return EEXIST;
	case NLE_INVAL:		return EINVAL;
	case NLE_RANGE:		return ERANGE;
	case NLE_MSGSIZE:	return EMSGSIZE;
	case NLE_OPNOTSUPP:	return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:	return ENOENT;
	case NLE_BUSY:		return EBUSY;
	case NLE_NOACCESS:	return EACCES;
	case NLE_PERM:		return EPERM;
	case NLE_NODEV:		return ENODEV;
	default:		return EIO;
	}
}

int ktask_nl_open(struct ktask_nl **out)
{
	struct ktask_nl *nl = xcalloc(1, sizeof(*nl));
	int one = 1, ret;

	*out = NULL;
	nl->sock = nl_socket_alloc();
	if (!nl->sock) {
		free(nl);
		return -ENOMEM;
	}
	ret = genl_connect(nl->sock);
	if (ret < 0) {
		ret = -nle_to_errno(ret);
		goto fail;
	}
	/* Best effort: kernels without extended acks just send none. */
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));

	nl->family = genl_ctrl_resolve(nl->sock, KTASK_FAMILY_NAME);
	if (nl->family < 0) {
		ret = -nle_to_errno(nl->family);
		goto fail;
	}
	*out = nl;
	return 0;
fail:
	nl_socket_free(nl->sock);
	free(nl);
	return ret;
}

void ktask_nl_close(struct ktask_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sock);
	free(nl);
}

/* The extended ack TLVs follow the echoed request (just its header if capped). */
static void save_extack(struct ktask_nl *nl, const struct nlmsgerr *err)
{
	const struct nlmsghdr *nlh =
		(const void *)((const char *)err - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t offset = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*err));

	nl->extack[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += NLMSG_ALIGN(err->msg.nlmsg_len - NLMSG_HDRLEN);
	if (offset >= nlh->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlh + offset),
		      (int)(nlh->nlmsg_len - offset), NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(nl->extack, tb[NLMSGERR_ATTR_MSG],
			    sizeof(nl->extack));
}

struct transaction {
	struct ktask_nl *nl;
	int err;
	bool done;
	struct ktask_config *config;	/* GET_CONFIG's reply */
};

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	struct transaction *t = arg;

	(void)who;
	t->err = err->error;
	t->done = true;
	save_extack(t->nl, err);
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct transaction *t = arg;

	(void)msg;
	t->done = true;
	return NL_STOP;
}

/*
 * Types as in the family's spec (Documentation/netlink/specs/ktask.yaml):
 * s32 attributes are NLA_S32 and read with nla_get_s32(), so negative nice
 * levels and errnos are signed by type, not by a cast.  libnl (3.7 still)
 * knows only the unsigned types' sizes, so NLA_S32 gets its minlen here:
 * a short attribute must fail the parse, not be read past its end.
 */
#define S32_POLICY	{ .type = NLA_S32, .minlen = sizeof(int32_t) }

int ktask_nl_parse_config(struct nlmsghdr *nlh, struct ktask_config *c)
{
	static struct nla_policy policy[KTASK_A_MAX + 1] = {
		[KTASK_A_MAX_THREADS]	= { .type = NLA_U32 },
		[KTASK_A_HELPER_NICE]	= S32_POLICY,
		[KTASK_A_RENICE]	= { .type = NLA_U8 },
	};
	struct nlattr *tb[KTASK_A_MAX + 1];

	memset(c, 0, sizeof(*c));
	if (genlmsg_parse(nlh, 0, tb, KTASK_A_MAX, policy) < 0)
		return -EINVAL;
	if (tb[KTASK_A_MAX_THREADS]) {
		c->has_max_threads = true;
		c->max_threads = nla_get_u32(tb[KTASK_A_MAX_THREADS]);
	}
	if (tb[KTASK_A_HELPER_NICE]) {
		c->has_helper_nice = true;
		c->helper_nice = nla_get_s32(tb[KTASK_A_HELPER_NICE]);
	}
	if (tb[KTASK_A_RENICE]) {
		c->has_renice = true;
		c->renice = nla_get_u8(tb[KTASK_A_RENICE]);
	}
	return 0;
}

static int on_config(struct nl_msg *msg, void *arg)
{
	struct transaction *t = arg;

	if (!t->config || ktask_nl_parse_config(nlmsg_hdr(msg), t->config))
		return NL_SKIP;
	return NL_OK;
}

/* Sends msg (consumed) and waits for the kernel's ack or error. */
static int transact(struct ktask_nl *nl, struct nl_msg *msg,
		    struct ktask_config *reply)
{
	struct transaction t = { .nl = nl, .config = reply };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	nl->extack[0] = '\0';
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_config, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t);

	ret = nl_send_auto(nl->sock, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		t.err = -nle_to_errno(ret);
		goto out;
	}
	while (!t.done) {
		ret = nl_recvmsgs(nl->sock, cb);
		/* on_error() already recorded the kernel's errno. */
		if (ret < 0 && !t.err)
			t.err = -nle_to_errno(ret);
		if (t.err)
			break;
	}
out:
	nl_cb_put(cb);
	return t.err;
}

static struct nl_msg *new_request(struct ktask_nl *nl, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 NLM_F_REQUEST | NLM_F_ACK, cmd, KTASK_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int ktask_nl_get_config(struct ktask_nl *nl, struct ktask_config *config)
{
	struct nl_msg *msg = new_request(nl, KTASK_CMD_GET_CONFIG);

	memset(config, 0, sizeof(*config));
	if (!msg)
		return -ENOMEM;
	return transact(nl, msg, config);
}

int ktask_nl_set_config(struct ktask_nl *nl, const struct ktask_config *config)
{
	struct nl_msg *msg = new_request(nl, KTASK_CMD_SET_CONFIG);
	int ret = 0;

	if (!msg)
		return -ENOMEM;
	if (config->has_max_threads)
		ret = ret ?: nla_put_u32(msg, KTASK_A_MAX_THREADS,
					 config->max_threads);
	if (config->has_helper_nice)
		ret = ret ?: nla_put_s32(msg, KTASK_A_HELPER_NICE,
					 config->helper_nice);
	if (config->has_renice)
		ret = ret ?: nla_put_u8(msg, KTASK_A_RENICE, config->renice);
	if (ret < 0) {
		nlmsg_free(msg);
		return -nle_to_errno(ret);
	}
	return transact(nl, msg, NULL);
}

int ktask_nl_subscribe_events(struct ktask_nl *nl)
{
	int group = genl_ctrl_resolve_grp(nl->sock, KTASK_FAMILY_NAME,
					  KTASK_MCGRP_EVENTS);
	int ret;

	if (group < 0)
		return -nle_to_errno(group);
	ret = nl_socket_add_membership(nl->sock, group);
	if (ret < 0)
		return -nle_to_errno(ret);
	nl_socket_set_buffer_size(nl->sock, EVENT_RCVBUF, 0);
	return 0;
}

struct event_receiver {
	ktask_event_fn fn;
	void *arg;
	bool stop;
};

int ktask_nl_parse_event(struct nlmsghdr *nlh, struct ktask_event *ev)
{
	static struct nla_policy policy[KTASK_A_MAX + 1] = {
		[KTASK_A_FUNC]		= { .type = NLA_STRING },
		[KTASK_A_SIZE]		= { .type = NLA_U64 },
		[KTASK_A_THREADS]	= { .type = NLA_U32 },
		[KTASK_A_CHUNKS]	= { .type = NLA_U32 },
		[KTASK_A_ELAPSED_NS]	= { .type = NLA_U64 },
		[KTASK_A_CPU_NS]	= { .type = NLA_U64 },
		[KTASK_A_ERROR]		= S32_POLICY,
		[KTASK_A_UNDONE]	= { .type = NLA_U64 },
	};
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[KTASK_A_MAX + 1];

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr(nlh, 0) || gnlh->cmd != KTASK_CMD_EVENT)
		return -ENOMSG;
	if (genlmsg_parse(nlh, 0, tb, KTASK_A_MAX, policy) < 0)
		return -EINVAL;

	if ((ev->has_func = tb[KTASK_A_FUNC]))
		ev->func = nla_get_string(tb[KTASK_A_FUNC]);
	if ((ev->has_size = tb[KTASK_A_SIZE]))
		ev->size = nla_get_u64(tb[KTASK_A_SIZE]);
	if ((ev->has_threads = tb[KTASK_A_THREADS]))
		ev->threads = nla_get_u32(tb[KTASK_A_THREADS]);
	if ((ev->has_chunks = tb[KTASK_A_CHUNKS]))
		ev->chunks = nla_get_u32(tb[KTASK_A_CHUNKS]);
	if ((ev->has_elapsed_ns = tb[KTASK_A_ELAPSED_NS]))
		ev->elapsed_ns = nla_get_u64(tb[KTASK_A_ELAPSED_NS]);
	if ((ev->has_cpu_ns = tb[KTASK_A_CPU_NS]))
		ev->cpu_ns = nla_get_u64(tb[KTASK_A_CPU_NS]);
	if ((ev->has_error = tb[KTASK_A_ERROR]))
		ev->error = nla_get_s32(tb[KTASK_A_ERROR]);
	if ((ev->has_undone = tb[KTASK_A_UNDONE]))
		ev->undone = nla_get_u64(tb[KTASK_A_UNDONE]);
	return 0;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct event_receiver *r = arg;
	struct ktask_event ev;

	if (ktask_nl_parse_event(nlmsg_hdr(msg), &ev))
		return NL_SKIP;

	if (!r->fn(&ev, r->arg)) {
		r->stop = true;
		return NL_STOP;
	}
	return NL_OK;
}

static int any_sequence(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int ktask_nl_receive_events(struct ktask_nl *nl, ktask_event_fn fn,
			    void (*lost)(void *arg), void *arg)
{
	struct event_receiver r = { .fn = fn, .arg = arg };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret = 0;

	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_event, &r);
	/* Multicast messages carry no sequence numbers of ours. */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_sequence, NULL);
	while (!r.stop) {
		ret = nl_recvmsgs(nl->sock, cb);
		/* libnl reports the socket's ENOBUFS (overrun) as NLE_NOMEM. */
		if (ret == -NLE_NOMEM) {
			if (lost)
				lost(arg);
			ret = 0;
			continue;
		}
		if (ret < 0) {
			ret = -nle_to_errno(ret);
			break;
		}
		ret = 0;
	}
	nl_cb_put(cb);
	return ret;
}

void ktask_nl_report(struct ktask_nl *nl, const char *what, int err)
{
	const char *extack = nl && nl->extack[0] ? nl->extack : NULL;

	err = -err;
	if (err == ENOENT && !nl) {
		error_msg(what, "kernel has no ktask (CONFIG_KTASK): generic netlink family '%s' not found",
			  KTASK_FAMILY_NAME);
	} else if (err == EPERM || err == EACCES) {
		error_msg(what, "%s (are you root?)", strerror(err));
	} else if (extack) {
		error_msg(what, "%s (%s)", strerror(err), extack);
	} else {
		error_msg(what, "%s", strerror(err));
	}
}
