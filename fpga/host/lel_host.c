/*
 * lel_host.c: the thesis's PS program (spec lel-platform.md §4.4, T:1343-1354) for the LEL
 * platform on a PYNQ-Z1, bare-metal style: the platform's registers through AXI4-Lite at
 * LEL_BASE (offsets from the generated lel_platform_regs.h), the AXI DMA in simple mode at
 * DMA_BASE streaming INIT weights and images in (MM2S) and weights back (S2MM).
 *
 *   1. configuration: model_cfg, the learning-rate table, the LFSR seeds;
 *   2. PL_INIT: FC0's, then FC1's weight words streamed in; wait for PL_IDLE;
 *   3. per epoch: EPOCH, N_TRAIN, I_TRAIN, the training images streamed in, polling STATUS
 *      until PL_IDLE, the correct counts printed;
 *   4. PL_INF on the test images; the correct counts printed;
 *   5. PL_READ: the weights streamed back.
 *
 * tests/platform_axi.rs runs the same sequence in Rust on the Verilated platform
 * (configure, init, train_epoch, test_run, read_weights), every access through AXI.
 *
 * Stream buffers: every MM2S beat is 8 bytes, the platform's 32-bit word first and the
 * label in the next word's [3:0] (0 for weight words): the block design's subset converter
 * turns it into TUSER (docs/decisions.md D-VIVADO-LABELS). Images are CHW, 4 int8 pixels per
 * word, pixel mapping already applied; weight words are INIT's format (docs/registers.md,
 * verif::lel::codec).
 *
 * Build (checked by tests/host.rs): gcc -std=c99 -Wall -Wextra -Werror -ffreestanding -c
 * lel_host.c. Define LEL_PRINTF as your printf (xil_printf) to see progress.
 */

#include <stddef.h>
#include <stdint.h>

#include "lel_platform_regs.h"

#ifndef LEL_BASE
#define LEL_BASE 0x43C00000u /* the block design's s_axi address */
#endif
#ifndef DMA_BASE
#define DMA_BASE 0x40400000u /* the block design's AXI DMA */
#endif
#ifndef LEL_PRINTF
#define LEL_PRINTF(...) ((void)0)
#endif

/* AXI DMA (PG021) simple-mode registers. */
#define DMA_MM2S_DMACR 0x00u
#define DMA_MM2S_DMASR 0x04u
#define DMA_MM2S_SA 0x18u
#define DMA_MM2S_LENGTH 0x28u
#define DMA_S2MM_DMACR 0x30u
#define DMA_S2MM_DMASR 0x34u
#define DMA_S2MM_DA 0x48u
#define DMA_S2MM_LENGTH 0x58u
#define DMA_CR_RUN 0x1u
#define DMA_SR_IDLE 0x2u
#define DMA_SR_ERRORS 0x770u

/* Bytes of one MM2S beat (word + label, see above). */
#define LEL_BEAT_BYTES 8u

/* One training job: what the PS program's user gives it. */
typedef struct {
    uint32_t model_cfg;       /* MODEL_CFG; its LR_SHIFT fields come from lr_table */
    const uint8_t *lr_table;  /* per-epoch FC0 | FC1 << 3 learning-rate shifts */
    uint32_t lr_len;          /* entries of lr_table (<= LEL_PLATFORM_LR_TABLE_COUNT) */
    uint32_t seeds[4];        /* SEED_LC0, SEED_WU0, SEED_LC1, SEED_WU1 */
    const void *weights;      /* INIT beats: FC0's words, then FC1's */
    uint32_t weight_beats;
    const void *train;        /* training images, IMAGE_BEATS beats each */
    uint32_t n_train;
    const void *test;         /* test images */
    uint32_t n_test;
    uint32_t epochs;
    uint32_t *readback;       /* FC0_WORDS + FC1_WORDS words, or NULL */
} lel_job_t;

static inline void lel_write(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(uintptr_t)(LEL_BASE + off) = v;
}

static inline uint32_t lel_read(uint32_t off)
{
    return *(volatile const uint32_t *)(uintptr_t)(LEL_BASE + off);
}

static inline void dma_write(uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(uintptr_t)(DMA_BASE + off) = v;
}

static inline uint32_t dma_read(uint32_t off)
{
    return *(volatile const uint32_t *)(uintptr_t)(DMA_BASE + off);
}

/* Start an MM2S transfer of `bytes` from `buf` (the platform back-pressures it). */
static void dma_send(const void *buf, uint32_t bytes)
{
    dma_write(DMA_MM2S_DMACR, DMA_CR_RUN);
    dma_write(DMA_MM2S_SA, (uint32_t)(uintptr_t)buf);
    dma_write(DMA_MM2S_LENGTH, bytes); /* writing the length starts it */
}

/* Start an S2MM transfer of up to `bytes` into `buf`. */
static void dma_receive(void *buf, uint32_t bytes)
{
    dma_write(DMA_S2MM_DMACR, DMA_CR_RUN);
    dma_write(DMA_S2MM_DA, (uint32_t)(uintptr_t)buf);
    dma_write(DMA_S2MM_LENGTH, bytes);
}

/* Wait for a DMA channel whose status register is at `sr`; nonzero on a DMA error. */
static int dma_wait(uint32_t sr)
{
    uint32_t s;
    do {
        s = dma_read(sr);
        if (s & DMA_SR_ERRORS)
            return -1;
    } while (!(s & DMA_SR_IDLE));
    return 0;
}

/* The platform's PL state. */
static uint32_t pl_state(void)
{
    return (lel_read(LEL_PLATFORM_STATUS_OFFSET) & LEL_PLATFORM_STATUS_PL_MASK) >>
           LEL_PLATFORM_STATUS_PL_SHIFT;
}

/* Poll until PL_IDLE (the thesis polls once per second and prints progress). */
static void wait_idle(void)
{
    while (pl_state() != 0) {
        LEL_PRINTF("  FC0 %u / FC1 %u images classified\n",
                   (unsigned)lel_read(LEL_PLATFORM_FC0_RESULTS_OFFSET),
                   (unsigned)lel_read(LEL_PLATFORM_FC1_RESULTS_OFFSET));
    }
}

static void instruction(uint32_t instr)
{
    lel_write(LEL_PLATFORM_CTRL_OFFSET, (instr << LEL_PLATFORM_CTRL_INSTR_SHIFT) &
                                            LEL_PLATFORM_CTRL_INSTR_MASK);
}

/* One PL_TRAIN or PL_INF run over `n` images at `images`. */
static int run_images(uint32_t instr, uint32_t count_reg, const void *images, uint32_t n)
{
    uint32_t beats = lel_read(LEL_PLATFORM_IMAGE_BEATS_OFFSET);
    lel_write(count_reg, n);
    instruction(instr);
    dma_send(images, n * beats * LEL_BEAT_BYTES);
    if (dma_wait(DMA_MM2S_DMASR))
        return -1;
    wait_idle();
    return 0;
}

/* The whole PS program for `job`; 0 on success. */
int lel_run(const lel_job_t *job)
{
    uint32_t e, i;
    if (lel_read(LEL_PLATFORM_ID_OFFSET) != LEL_PLATFORM_ID_VALUE)
        return -1;
    if (job->lr_len > LEL_PLATFORM_LR_TABLE_COUNT)
        return -2;
    /* 1. Configuration. */
    lel_write(LEL_PLATFORM_MODEL_CFG_OFFSET, job->model_cfg);
    for (i = 0; i < job->lr_len; i++)
        lel_write(LEL_PLATFORM_LR_TABLE_OFFSET(i), job->lr_table[i]);
    lel_write(LEL_PLATFORM_LR_LEN_OFFSET, job->lr_len);
    lel_write(LEL_PLATFORM_SEED_LC0_OFFSET, job->seeds[0] & LEL_PLATFORM_SEED_LC0_SEED_MASK);
    lel_write(LEL_PLATFORM_SEED_WU0_OFFSET, job->seeds[1] & LEL_PLATFORM_SEED_WU0_SEED_MASK);
    lel_write(LEL_PLATFORM_SEED_LC1_OFFSET, job->seeds[2] & LEL_PLATFORM_SEED_LC1_SEED_MASK);
    lel_write(LEL_PLATFORM_SEED_WU1_OFFSET, job->seeds[3] & LEL_PLATFORM_SEED_WU1_SEED_MASK);
    /* 2. PL_INIT. */
    instruction(LEL_PLATFORM_CTRL_INSTR_I_INIT);
    dma_send(job->weights, job->weight_beats * LEL_BEAT_BYTES);
    if (dma_wait(DMA_MM2S_DMASR))
        return -3;
    wait_idle();
    /* 3. Epochs. */
    for (e = 0; e < job->epochs; e++) {
        lel_write(LEL_PLATFORM_EPOCH_OFFSET, e);
        if (run_images(LEL_PLATFORM_CTRL_INSTR_I_TRAIN, LEL_PLATFORM_N_TRAIN_OFFSET, job->train,
                       job->n_train))
            return -4;
        LEL_PRINTF("epoch %u: train FC0 %u / FC1 %u of %u correct, %u cycles\n", (unsigned)e + 1,
                   (unsigned)lel_read(LEL_PLATFORM_FC0_CORRECT_OFFSET),
                   (unsigned)lel_read(LEL_PLATFORM_FC1_CORRECT_OFFSET), (unsigned)job->n_train,
                   (unsigned)lel_read(LEL_PLATFORM_RUN_CYCLES_OFFSET));
        /* 4. Test run. */
        if (run_images(LEL_PLATFORM_CTRL_INSTR_I_INF, LEL_PLATFORM_N_TEST_OFFSET, job->test,
                       job->n_test))
            return -5;
        LEL_PRINTF("epoch %u: test FC0 %u / FC1 %u of %u correct\n", (unsigned)e + 1,
                   (unsigned)lel_read(LEL_PLATFORM_FC0_CORRECT_OFFSET),
                   (unsigned)lel_read(LEL_PLATFORM_FC1_CORRECT_OFFSET), (unsigned)job->n_test);
    }
    /* 5. PL_READ: the weights back (4-byte beats on S2MM). */
    if (job->readback) {
        uint32_t words = lel_read(LEL_PLATFORM_FC0_WORDS_OFFSET) +
                         lel_read(LEL_PLATFORM_FC1_WORDS_OFFSET);
        dma_receive(job->readback, words * 4u);
        instruction(LEL_PLATFORM_CTRL_INSTR_I_READ);
        if (dma_wait(DMA_S2MM_DMASR))
            return -6;
        wait_idle();
    }
    return 0;
}
