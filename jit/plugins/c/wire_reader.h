/*
 * A bounds-checked reader for the Rynamo graph wire format (jit/plugin-wire/WIRE_FORMAT.md),
 * shared by the C plugins. Header-only; every read sets r->err instead of overrunning.
 */
#ifndef RYNAMO_WIRE_READER_H
#define RYNAMO_WIRE_READER_H

#include <stdint.h>
#include <string.h>

#include "rynamo_graph_wire.h"
#include "rynamo_plugin.h"

typedef struct {
    const uint8_t* p;
    size_t len;
    size_t pos;
    int err;
} WireReader;

static int wr_take(WireReader* r, void* out, size_t n) {
    if (r->err || r->len - r->pos < n) {
        r->err = 1;
        if (out) memset(out, 0, n);
        return 0;
    }
    if (out) memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return 1;
}
static uint8_t wr_u8(WireReader* r) { uint8_t v; wr_take(r, &v, 1); return v; }
static uint16_t wr_u16(WireReader* r) { uint16_t v; wr_take(r, &v, 2); return v; }
static uint32_t wr_u32(WireReader* r) { uint32_t v; wr_take(r, &v, 4); return v; }
static int64_t wr_i64(WireReader* r) { int64_t v; wr_take(r, &v, 8); return v; }
static double wr_f64(WireReader* r) { double v; wr_take(r, &v, 8); return v; }
static void wr_skip(WireReader* r, size_t n) { wr_take(r, NULL, n); }

/* One argument, decoded as far as the plugins need: tensors, numbers; lists are skipped. */
typedef struct {
    uint8_t tag;
    uint32_t id;      /* TENSOR */
    uint8_t kind;     /* SCALAR: RYNAMO_SCALAR_* */
    int64_t i;        /* SCALAR int / bool, INT, BOOL */
    double f;         /* SCALAR float, FLOAT */
} WireArg;

static void wr_arg(WireReader* r, WireArg* a) {
    memset(a, 0, sizeof *a);
    a->tag = wr_u8(r);
    switch (a->tag) {
    case RYNAMO_ARG_NONE: break;
    case RYNAMO_ARG_TENSOR: a->id = wr_u32(r); break;
    case RYNAMO_ARG_TENSOR_LIST: { uint32_t n = wr_u32(r); wr_skip(r, 4 * (size_t)n); break; }
    case RYNAMO_ARG_SCALAR:
        a->kind = wr_u8(r);
        if (a->kind == RYNAMO_SCALAR_BOOL) a->i = wr_u8(r);
        else if (a->kind == RYNAMO_SCALAR_INT) a->i = wr_i64(r);
        else if (a->kind == RYNAMO_SCALAR_FLOAT) a->f = wr_f64(r);
        else r->err = 1;
        break;
    case RYNAMO_ARG_INT: a->i = wr_i64(r); break;
    case RYNAMO_ARG_INT_LIST: { uint32_t n = wr_u32(r); wr_skip(r, 8 * (size_t)n); break; }
    case RYNAMO_ARG_FLOAT: a->f = wr_f64(r); break;
    case RYNAMO_ARG_BOOL: a->i = wr_u8(r); break;
    case RYNAMO_ARG_STR: { uint32_t n = wr_u32(r); wr_skip(r, n); break; }
    case RYNAMO_ARG_DTYPE: wr_u8(r); break;
    case RYNAMO_ARG_INDEX: {
        uint32_t n = wr_u32(r);
        for (uint32_t k = 0; k < n && !r->err; k++) {
            uint8_t kind = wr_u8(r);
            if (kind == RYNAMO_INDEX_INT) wr_i64(r);
            else if (kind == RYNAMO_INDEX_SLICE) {
                uint8_t m = wr_u8(r);
                for (int b = 0; b < 3; b++) if (m & (1 << b)) wr_i64(r);
            } else if (kind == RYNAMO_INDEX_BOOL) wr_u8(r);
            else if (kind == RYNAMO_INDEX_TENSOR) wr_u32(r);
            else if (kind != RYNAMO_INDEX_NONE && kind != RYNAMO_INDEX_ELLIPSIS) r->err = 1;
        }
        break;
    }
    default: r->err = 1;
    }
}

#endif /* RYNAMO_WIRE_READER_H */
