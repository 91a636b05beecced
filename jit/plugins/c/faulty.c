/*
 * Deliberately broken plugins for the host's load and run tests. Compiled once per fault with
 * -DFAULT=<n>; each build breaks exactly one rule of the ABI:
 *
 *   1 NO_ENTRY     exports no rynamo_plugin_get_api
 *   2 MAJOR        claims ABI major RYNAMO_ABI_MAJOR + 1
 *   3 SMALL        struct_size too small for ABI 1.0
 *   4 NULL_API     rynamo_plugin_get_api returns NULL
 *   5 NULL_COMPILE compile is NULL in the table
 *   6 WRONG_SHAPE  execute returns [1]-shaped outputs whatever the graph says
 *   7 BAD_NAME     name is not [A-Za-z0-9_.-]+
 *   8 MINOR_LIE    claims ABI 1.1 with a 1.0-sized table
 *   9 INIT_ERROR   initialize (1.1) fails
 *  10 NEWER_MINOR  claims a future minor with a larger table (must load: forward compatible)
 *
 * Apart from its fault, the plugin claims every node, compiles to a token executable, and fails
 * execute with UNIMPLEMENTED. Build with -Wno-unused: some faults leave helpers unused.
 */
#include <stdlib.h>
#include <string.h>

#include "rynamo_plugin.h"

#ifndef FAULT
#error "compile with -DFAULT=<n>"
#endif

typedef struct {
    uint32_t code;
    const char* message;
} CError;

static RynamoError* make_error(uint32_t code, const char* msg) {
    CError* e = (CError*)malloc(sizeof *e);
    if (!e) return NULL;
    e->code = code;
    e->message = msg;
    return (RynamoError*)e;
}
static void error_destroy(RynamoError* e) { free(e); }
static void error_message(const RynamoError* e, const char** msg, size_t* len) {
    *msg = ((const CError*)e)->message;
    *len = strlen(*msg);
}
static uint32_t error_code(const RynamoError* e) { return ((const CError*)e)->code; }

static RynamoError* supports(RynamoSupportsArgs* a) {
    memset(a->node_supported, 1, a->num_nodes);
    return NULL;
}

static int token;

static RynamoError* compile(RynamoCompileArgs* a) {
    a->executable = (RynamoExecutable*)&token;
    return NULL;
}

static void executable_destroy(RynamoExecutable* e) { (void)e; }

#if FAULT == 6
static void deleter(RynamoManagedTensor* m) {
    free(m->dl_tensor.data);
    free(m);
}

typedef struct {
    RynamoManagedTensor m;
    int64_t shape[1];
} Managed;
#endif

static RynamoError* execute(RynamoExecuteArgs* a) {
#if FAULT == 6
    for (size_t k = 0; k < a->num_outputs; k++) {
        Managed* m = (Managed*)calloc(1, sizeof *m);
        float* data = (float*)calloc(1, sizeof(float));
        if (!m || !data) {
            free(m);
            free(data);
            return make_error(RYNAMO_ERROR_RESOURCE_EXHAUSTED, "out of memory");
        }
        m->shape[0] = 1;
        m->m.dl_tensor.data = data;
        m->m.dl_tensor.device.device_type = RYNAMO_DEVICE_CPU;
        m->m.dl_tensor.ndim = 1;
        m->m.dl_tensor.dtype.code = RYNAMO_DTYPE_CODE_FLOAT;
        m->m.dl_tensor.dtype.bits = 32;
        m->m.dl_tensor.dtype.lanes = 1;
        m->m.dl_tensor.shape = m->shape;
        m->m.deleter = deleter;
        a->outputs[k] = &m->m;
    }
    return NULL;
#else
    (void)a;
    return make_error(RYNAMO_ERROR_UNIMPLEMENTED, "faulty C plugin: execute is not implemented");
#endif
}

static RynamoError* initialize(RynamoInitializeArgs* a) {
    (void)a;
#if FAULT == 9
    return make_error(RYNAMO_ERROR_UNAVAILABLE, "faulty C plugin: no device present");
#else
    return NULL;
#endif
}

/* A table with room for fields a future minor version might append. */
typedef struct {
    RynamoPluginApi api;
    void* future[8];
} FutureApi;

static const FutureApi API = {
    {
#if FAULT == 3
        .struct_size = RYNAMO_STRUCT_SIZE(RynamoPluginApi, supports),
#elif FAULT == 8
        .struct_size = RYNAMO_STRUCT_SIZE(RynamoPluginApi, execute),
#elif FAULT == 10
        .struct_size = sizeof(FutureApi),
#else
        .struct_size = sizeof(RynamoPluginApi),
#endif
#if FAULT == 2
        .abi_major = RYNAMO_ABI_MAJOR + 1,
#else
        .abi_major = RYNAMO_ABI_MAJOR,
#endif
#if FAULT == 10
        .abi_minor = RYNAMO_ABI_MINOR + 6,
#else
        .abi_minor = RYNAMO_ABI_MINOR,
#endif
#if FAULT == 7
        .name = "bad name!",
#else
        .name = "c-faulty",
#endif
        .version = "0",
        .capabilities = 0,
        .error_destroy = error_destroy,
        .error_message = error_message,
        .error_code = error_code,
        .supports = supports,
#if FAULT == 5
        .compile = NULL,
#else
        .compile = compile,
#endif
        .executable_destroy = executable_destroy,
        .execute = execute,
        .initialize = initialize,
    },
    {0},
};

#if FAULT == 1
RYNAMO_EXPORT const RynamoPluginApi* rynamo_plugin_get_api_v2(void) { return &API.api; }
#elif FAULT == 4
RYNAMO_EXPORT const RynamoPluginApi* rynamo_plugin_get_api(void) { return NULL; }
#else
RYNAMO_EXPORT const RynamoPluginApi* rynamo_plugin_get_api(void) { return &API.api; }
#endif
