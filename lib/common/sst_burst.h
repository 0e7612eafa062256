/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packets handled per burst on every data path (rx, tx, armor).
 */
#ifndef SST_BURST_H
#define SST_BURST_H

#define SST_MAX_BURST 32 /**< packets per burst, at most */

#endif /* SST_BURST_H */
