/* The body shared by the OTS harnesses (pvt_parse.c, anm_parse.c): parse, and on success
 * write, parse the output, and write again: the writer's form must be a fixed point
 * (write(parse(write(x))) == write(x)) and always parse. Define OTS_T (rig or clip) first. */
#include "fuzz_helpers.h"

#define OTS_CAT2(a, b) a##b
#define OTS_CAT(a, b) OTS_CAT2(a, b)
#define OTS_FN(suffix) OTS_CAT(OTS_CAT(onescope_ots_, OTS_T), suffix)
#define OTS_TYPE OTS_CAT(onescope_ots_, OTS_T)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_env env;
    fuzz_env_init(&env, data, &size);
    OTS_TYPE *doc = NULL;
    onescope_error err;
    onescope_code rc = OTS_FN(_parse)(data, size, "fuzz", &env.options, &doc, &err);
    if (rc != ONESCOPE_OK) {
        FUZZ_ASSERT(doc == NULL);
        fuzz_check_error(&env, rc, &err, "fuzz", size);
        fuzz_env_finish(&env);
        return 0;
    }
    onescope_buffer first;
    rc = OTS_FN(_write)(doc, &env.allocator, &first, &err);
    if (rc == ONESCOPE_OK) {
        OTS_TYPE *back = NULL;
        onescope_parse_options o = env.options;
        o.max_input_bytes = ONESCOPE_MAX_INPUT_BYTES; /* the output may be longer than the input */
        rc = OTS_FN(_parse)(first.data, first.size, "written", &o, &back, &err);
        if (rc == ONESCOPE_OK) {
            onescope_buffer second;
            rc = OTS_FN(_write)(back, &env.allocator, &second, &err);
            if (rc == ONESCOPE_OK) {
                FUZZ_ASSERT_MSG(second.size == first.size &&
                                    memcmp(second.data, first.data, first.size) == 0,
                                "writing the parsed output changed it (%zu -> %zu bytes)",
                                first.size, second.size);
                onescope_buffer_free(&second);
            } else {
                FUZZ_ASSERT(rc == ONESCOPE_E_NOMEM && env.failed);
            }
            OTS_FN(_free)(back);
        } else {
            fuzz_check_error(&env, rc, &err, "written", first.size);
            FUZZ_ASSERT_MSG(rc == ONESCOPE_E_NOMEM,
                            "the parser refuses what the writer wrote: %s: %s %s", err.field,
                            err.expected, err.found);
        }
        onescope_buffer_free(&first);
    } else {
        fuzz_check_error(&env, rc, &err, "", SIZE_MAX);
        FUZZ_ASSERT_MSG(rc == ONESCOPE_E_NOMEM, "a parsed document does not write: %s", err.found);
    }
    OTS_FN(_free)(doc);
    fuzz_env_finish(&env);
    return 0;
}
