/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "channel_rtt.h"

void
sst_rtt_default_params(struct sst_rtt_params *p)
{
	p->initial_rto = SST_NSEC_PER_SEC;
	p->min_rto = 200 * SST_NSEC_PER_MSEC;
	p->max_rto = 60 * SST_NSEC_PER_SEC;
	p->granularity = SST_NSEC_PER_MSEC;
}

int
sst_rtt_init(struct sst_rtt *r, const struct sst_rtt_params *p)
{
	if (p->initial_rto == 0 || p->min_rto == 0 || p->min_rto > p->max_rto ||
		p->initial_rto > p->max_rto)
		return -EINVAL;
	r->p = *p;
	r->srtt = 0;
	r->rttvar = 0;
	r->latest = 0;
	r->min = SST_TIME_NEVER;
	r->rto = p->initial_rto;
	r->backoff = 0;
	return 0;
}

static sst_time_t
compute_rto(const struct sst_rtt *r)
{
	sst_time_t var = 4 * r->rttvar;
	sst_time_t rto = r->srtt + (var > r->p.granularity ? var : r->p.granularity);

	if (rto < r->p.min_rto)
		rto = r->p.min_rto;
	return rto > r->p.max_rto ? r->p.max_rto : rto;
}

void
sst_rtt_sample(struct sst_rtt *r, sst_time_t sample)
{
	if (sample == 0)
		sample = 1;
	r->latest = sample;
	if (sample < r->min)
		r->min = sample;
	if (r->srtt == 0) {
		/* RFC 6298 2.2 */
		r->srtt = sample;
		r->rttvar = sample / 2;
	} else {
		/* RFC 6298 2.3, beta = 1/4, alpha = 1/8 */
		sst_time_t err = r->srtt > sample ? r->srtt - sample : sample - r->srtt;

		r->rttvar = (3 * r->rttvar + err) / 4;
		r->srtt = (7 * r->srtt + sample) / 8;
	}
	r->backoff = 0;
	r->rto = compute_rto(r);
}

void
sst_rtt_backoff(struct sst_rtt *r)
{
	r->backoff++;
	r->rto = r->rto > r->p.max_rto / 2 ? r->p.max_rto : 2 * r->rto;
}
