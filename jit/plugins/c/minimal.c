/*
 * A minimal Rynamo plugin in plain C: float32 neg/abs/relu/exp and same-shape add/sub/mul (tensor
 * or Python-number operand). It proves the generated headers are enough to write a plugin without
 * Rust, and it declares ABI 1.0 (no `initialize`) so the host's handling of older minors is tested.
 *
 * Build: cc -std=c11 -O2 -fPIC -shared -I<plugin-abi/include> -I<plugin-wire/include> minimal.c -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_reader.h"

/* === Errors === */

typedef struct {
    uint32_t code;
    char message[256];
} CError;

static RynamoError* make_error(uint32_t code, const char* msg) {
    CError* e = (CError*)malloc(sizeof *e);
    if (!e) return NULL; /* cannot report; the host sees success with no executable/outputs */
    e->code = code;
    snprintf(e->message, sizeof e->message, "%s", msg);
    return (RynamoError*)e;
}
static void error_destroy(RynamoError* e) { free(e); }
static void error_message(const RynamoError* e, const char** msg, size_t* len) {
    *msg = ((const CError*)e)->message;
    *len = strlen(((const CError*)e)->message);
}
static uint32_t error_code(const RynamoError* e) { return ((const CError*)e)->code; }

/* === Graph === */

enum { MAX_DIMS = 16 };

typedef struct {
    uint8_t dtype;
    uint8_t ndim;
    int64_t shape[MAX_DIMS];
    int64_t numel;
} Value;

typedef struct {
    uint16_t op;
    uint32_t a, b, out;
    int b_scalar;       /* the second operand is a number */
    float scalar;       /* that number */
    float alpha;        /* add/sub */
    int ok;             /* this plugin can run the node */
} Instr;

typedef struct {
    uint32_t num_values, num_inputs, num_nodes, num_outputs;
    Value* values;
    Instr* instrs;
    uint32_t* outputs;
} Program;

static void program_free(Program* p) {
    if (!p) return;
    free(p->values);
    free(p->instrs);
    free(p->outputs);
    free(p);
}

static int same_shape(const Value* x, const Value* y) {
    return x->ndim == y->ndim && memcmp(x->shape, y->shape, sizeof(int64_t) * x->ndim) == 0;
}

static int number(const WireArg* a, float* out) {
    if (a->tag == RYNAMO_ARG_SCALAR && a->kind == RYNAMO_SCALAR_INT) { *out = (float)a->i; return 1; }
    if (a->tag == RYNAMO_ARG_SCALAR && a->kind == RYNAMO_SCALAR_FLOAT) { *out = (float)a->f; return 1; }
    return 0;
}

/* Decodes the whole graph; marks each node ok or not. Returns NULL with *err set on malformed bytes. */
static Program* parse(const uint8_t* bytes, size_t len, RynamoError** err) {
    WireReader r = {bytes, len, 0, 0};
    char magic[4];
    wr_take(&r, magic, 4);
    uint32_t version = wr_u32(&r);
    if (r.err || memcmp(magic, RYNAMO_WIRE_MAGIC, 4) != 0 || version != RYNAMO_GRAPH_WIRE_VERSION) {
        *err = make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "not a version-1 Rynamo wire graph");
        return NULL;
    }
    Program* p = (Program*)calloc(1, sizeof *p);
    if (!p) { *err = make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory"); return NULL; }
    p->num_values = wr_u32(&r);
    p->num_inputs = wr_u32(&r);
    p->num_nodes = wr_u32(&r);
    p->num_outputs = wr_u32(&r);
    if (r.err || p->num_values > len || p->num_nodes > len || p->num_outputs > len
        || p->num_inputs > p->num_values) {
        program_free(p);
        *err = make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "wire graph header is inconsistent");
        return NULL;
    }
    p->values = (Value*)calloc(p->num_values + 1, sizeof(Value));
    p->instrs = (Instr*)calloc(p->num_nodes + 1, sizeof(Instr));
    p->outputs = (uint32_t*)calloc(p->num_outputs + 1, sizeof(uint32_t));
    if (!p->values || !p->instrs || !p->outputs) {
        program_free(p);
        *err = make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < p->num_values && !r.err; i++) {
        Value* v = &p->values[i];
        v->dtype = wr_u8(&r);
        v->ndim = wr_u8(&r);
        wr_skip(&r, wr_u16(&r));
        if (v->ndim > MAX_DIMS) { r.err = 1; break; }
        v->numel = 1;
        for (int d = 0; d < v->ndim; d++) {
            v->shape[d] = wr_i64(&r);
            if (v->shape[d] < 0) r.err = 1;
            v->numel *= v->shape[d];
        }
        wr_skip(&r, 8 * (size_t)v->ndim);
    }
    uint32_t defined = p->num_inputs;
    for (uint32_t k = 0; k < p->num_nodes && !r.err; k++) {
        Instr* in = &p->instrs[k];
        in->op = wr_u16(&r);
        uint16_t nargs = wr_u16(&r);
        WireArg args[3];
        for (uint16_t j = 0; j < nargs && !r.err; j++) {
            WireArg a;
            wr_arg(&r, &a);
            if (a.tag == RYNAMO_ARG_TENSOR && a.id >= defined) r.err = 1;
            if (j < 3) args[j] = a;
        }
        uint32_t nout = wr_u32(&r);
        if (r.err || nout > p->num_values - defined) { r.err = 1; break; }
        in->out = defined;
        defined += nout;
        /* Which nodes can we run? f32 tensors of one shape, no broadcasting. */
        int unary = in->op == RYNAMO_OP_NEG || in->op == RYNAMO_OP_ABS || in->op == RYNAMO_OP_RELU
                    || in->op == RYNAMO_OP_EXP;
        int addsub = in->op == RYNAMO_OP_ADD || in->op == RYNAMO_OP_SUB;
        int mul = in->op == RYNAMO_OP_MUL;
        size_t want_args = unary ? 1 : addsub ? 3 : 2;
        if (!(unary || addsub || mul) || nout != 1 || nargs != want_args) continue;
        if (args[0].tag != RYNAMO_ARG_TENSOR) continue;
        const Value* out = &p->values[in->out];
        const Value* a = &p->values[args[0].id];
        if (a->dtype != RYNAMO_WIRE_DTYPE_FLOAT32 || out->dtype != RYNAMO_WIRE_DTYPE_FLOAT32
            || !same_shape(a, out))
            continue;
        in->a = args[0].id;
        in->alpha = 1.0f;
        if (!unary) {
            if (args[1].tag == RYNAMO_ARG_TENSOR) {
                const Value* b = &p->values[args[1].id];
                if (b->dtype != RYNAMO_WIRE_DTYPE_FLOAT32 || !same_shape(b, out)) continue;
                in->b = args[1].id;
            } else if (number(&args[1], &in->scalar)) {
                in->b_scalar = 1;
            } else {
                continue;
            }
            if (addsub && !number(&args[2], &in->alpha)) continue;
        }
        in->ok = 1;
    }
    for (uint32_t k = 0; k < p->num_outputs && !r.err; k++) {
        p->outputs[k] = wr_u32(&r);
        if (p->outputs[k] >= defined) r.err = 1;
    }
    if (r.err || defined != p->num_values || r.pos != len) {
        program_free(p);
        *err = make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "malformed wire graph");
        return NULL;
    }
    return p;
}

/* === Entry points === */

static RynamoError* supports(RynamoSupportsArgs* args) {
    if (!args || args->struct_size < RYNAMO_STRUCT_SIZE(RynamoSupportsArgs, num_nodes))
        return make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "supports: bad args");
    RynamoError* err = NULL;
    Program* p = parse(args->graph, args->graph_len, &err);
    if (!p) return err;
    if (p->num_nodes != args->num_nodes) {
        program_free(p);
        return make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "supports: num_nodes mismatch");
    }
    for (uint32_t k = 0; k < p->num_nodes; k++) args->node_supported[k] = (uint8_t)p->instrs[k].ok;
    program_free(p);
    return NULL;
}

static RynamoError* compile(RynamoCompileArgs* args) {
    if (!args || args->struct_size < RYNAMO_STRUCT_SIZE(RynamoCompileArgs, executable))
        return make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "compile: bad args");
    args->executable = NULL;
    RynamoError* err = NULL;
    Program* p = parse(args->graph, args->graph_len, &err);
    if (!p) return err;
    for (uint32_t k = 0; k < p->num_nodes; k++) {
        if (!p->instrs[k].ok) {
            char msg[128];
            snprintf(msg, sizeof msg, "compile: node %u (op id %u) is not supported", k,
                     (unsigned)p->instrs[k].op);
            program_free(p);
            return make_error(RYNAMO_ERROR_UNIMPLEMENTED, msg);
        }
    }
    args->executable = (RynamoExecutable*)p;
    return NULL;
}

static void executable_destroy(RynamoExecutable* e) { program_free((Program*)e); }

typedef struct {
    RynamoManagedTensor m;
    int64_t shape[MAX_DIMS];
} Managed;

static void managed_deleter(RynamoManagedTensor* m) {
    free(m->dl_tensor.data);
    free(m);
}

static RynamoError* execute(RynamoExecuteArgs* args) {
    if (!args || args->struct_size < RYNAMO_STRUCT_SIZE(RynamoExecuteArgs, num_outputs) || !args->executable)
        return make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "execute: bad args");
    const Program* p = (const Program*)args->executable;
    if (args->num_inputs != p->num_inputs || args->num_outputs != p->num_outputs)
        return make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "execute: wrong number of inputs or outputs");
    float** buf = (float**)calloc(p->num_values + 1, sizeof(float*));
    if (!buf) return make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory");
    RynamoError* err = NULL;
    for (uint32_t i = 0; i < p->num_inputs && !err; i++) {
        const RynamoTensor* t = &args->inputs[i];
        const Value* v = &p->values[i];
        int ok = t->dtype.code == RYNAMO_DTYPE_CODE_FLOAT && t->dtype.bits == 32 && t->ndim == v->ndim;
        for (int d = 0; ok && d < v->ndim; d++) ok = t->shape[d] == v->shape[d];
        /* No RYNAMO_CAP_STRIDED_INPUTS: the host sends row-major data; check, do not trust. */
        int64_t expect = 1;
        for (int d = v->ndim - 1; ok && t->strides && d >= 0; d--) {
            ok = v->shape[d] == 1 || t->strides[d] == expect;
            expect *= v->shape[d];
        }
        if (!ok) err = make_error(RYNAMO_ERROR_INVALID_ARGUMENT, "execute: input does not match the graph");
        else buf[i] = (float*)((char*)t->data + t->byte_offset);
    }
    for (uint32_t k = 0; k < p->num_nodes && !err; k++) {
        const Instr* in = &p->instrs[k];
        int64_t n = p->values[in->out].numel;
        float* o = (float*)malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
        if (!o) { err = make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory"); break; }
        buf[in->out] = o;
        const float* a = buf[in->a];
        const float* b = in->b_scalar ? NULL : buf[in->b];
        for (int64_t j = 0; j < n; j++) {
            float x = a[j];
            float y = b ? b[j] : in->scalar;
            switch (in->op) {
            case RYNAMO_OP_NEG: o[j] = -x; break;
            case RYNAMO_OP_ABS: o[j] = fabsf(x); break;
            case RYNAMO_OP_RELU: o[j] = x > 0.0f ? x : (x == x ? 0.0f : x); break;
            case RYNAMO_OP_EXP: o[j] = expf(x); break;
            case RYNAMO_OP_ADD: o[j] = x + in->alpha * y; break;
            case RYNAMO_OP_SUB: o[j] = x - in->alpha * y; break;
            case RYNAMO_OP_MUL: o[j] = x * y; break;
            default: o[j] = 0.0f;
            }
        }
    }
    for (uint32_t k = 0; k < p->num_outputs && !err; k++) {
        const Value* v = &p->values[p->outputs[k]];
        Managed* m = (Managed*)calloc(1, sizeof *m);
        float* data = (float*)malloc(sizeof(float) * (size_t)(v->numel > 0 ? v->numel : 1));
        if (!m || !data) {
            free(m);
            free(data);
            err = make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory");
            break;
        }
        if (v->numel > 0) memcpy(data, buf[p->outputs[k]], sizeof(float) * (size_t)v->numel);
        memcpy(m->shape, v->shape, sizeof(int64_t) * v->ndim);
        m->m.dl_tensor.data = data;
        m->m.dl_tensor.device.device_type = RYNAMO_DEVICE_CPU;
        m->m.dl_tensor.ndim = v->ndim;
        m->m.dl_tensor.dtype.code = RYNAMO_DTYPE_CODE_FLOAT;
        m->m.dl_tensor.dtype.bits = 32;
        m->m.dl_tensor.dtype.lanes = 1;
        m->m.dl_tensor.shape = m->shape;
        m->m.dl_tensor.strides = NULL;
        m->m.manager_ctx = NULL;
        m->m.deleter = managed_deleter;
        args->outputs[k] = &m->m; /* on a later error the host still releases these */
    }
    for (uint32_t i = p->num_inputs; i < p->num_values; i++) free(buf[i]);
    free(buf);
    return err;
}

static const RynamoPluginApi API = {
    /* Built against ABI 1.0: the table ends at `execute`. */
    .struct_size = RYNAMO_STRUCT_SIZE(RynamoPluginApi, execute),
    .abi_major = RYNAMO_ABI_MAJOR,
    .abi_minor = 0,
    .name = "c-minimal",
    .version = "1.0",
    .capabilities = 0,
    .error_destroy = error_destroy,
    .error_message = error_message,
    .error_code = error_code,
    .supports = supports,
    .compile = compile,
    .executable_destroy = executable_destroy,
    .execute = execute,
    .initialize = NULL,
};

RYNAMO_EXPORT const RynamoPluginApi* rynamo_plugin_get_api(void) { return &API; }
