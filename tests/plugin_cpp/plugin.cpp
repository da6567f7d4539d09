// A module plug-in written in C++17, as docs/module.md ("A plug-in in C++") shows it: the
// table filled member by member (designated initializers are C++20), the entry defined at
// global scope with the prototype module.h declares with C linkage, so the shared library
// exports the C name the loader asks for. tests/cli/cli_plugin_cpp.sh loads it into the CLI.
//
// The world: a total and a step count. A step adds its input's bytes and 1 to the total, in two
// stages ("sum": the bytes, "count": the 1 and the count); an input of more than 8 bytes is
// refused by check_input at its ninth byte. Hash: total * 0x9e3779b97f4a7c15 + steps (mod
// 2^64). Built twice: PLUGIN_ENTRY_IN_NAMESPACE puts the entry in a namespace, where it gets a
// C++ (mangled) name, the mistake the loader's refusal hints at. CPP_PLUGIN_ID in the
// environment replaces the id (the CLI's refusal of a built-in module's id).
#include <onescope/module.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

struct counter {
    std::uint64_t total = 0;
    std::uint32_t steps = 0;
};

std::uint64_t sum(const void *bytes, std::size_t size) {
    const auto *p = static_cast<const unsigned char *>(bytes);
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < size; i++) s += p[i];
    return s;
}

onescope_code create(void *, const void *setup, std::size_t setup_size, const onescope_allocator *,
                     void **world, onescope_error *) {
    auto *w = new (std::nothrow) counter;
    if (w == nullptr) return ONESCOPE_E_NOMEM;
    w->total = sum(setup, setup_size);
    *world = w;
    return ONESCOPE_OK;
}

void destroy(void *, void *world) {
    delete static_cast<counter *>(world);
}

onescope_code run_stage(void *, void *world, std::uint32_t stage, const void *input,
                        std::size_t input_size, onescope_error *) {
    auto *w = static_cast<counter *>(world);
    if (stage == 0) {
        w->total += sum(input, input_size);
    } else {
        w->total += 1;
        w->steps += 1;
    }
    return ONESCOPE_OK;
}

onescope_code step(void *context, void *world, const void *input, std::size_t input_size,
                   onescope_error *error) {
    for (std::uint32_t s = 0; s < 2; s++) {
        onescope_code rc = run_stage(context, world, s, input, input_size, error);
        if (rc != ONESCOPE_OK) return rc;
    }
    return ONESCOPE_OK;
}

std::uint64_t hash(void *, const void *world) {
    const auto *w = static_cast<const counter *>(world);
    return w->total * UINT64_C(0x9e3779b97f4a7c15) + w->steps;
}

onescope_code check_input(void *, const void *, std::size_t, const void *, std::size_t input_size,
                          onescope_error *error) {
    if (input_size <= 8) return ONESCOPE_OK;
    return onescope_module_fail(error, ONESCOPE_E_LENGTH, 8, "input", "at most 8 bytes", "more");
}

const char *const stage_names[2] = {"sum", "count"};

// C++17: no designated initializers, so the table starts as all zeros (every optional slot
// absent) and the members it has are set one by one.
onescope_module make_table() {
    onescope_module t{};
    t.struct_size = sizeof t;
    t.abi = ONESCOPE_MODULE_ABI;
    const char *id = std::getenv("CPP_PLUGIN_ID");
    t.id = id != nullptr ? id : "cpp.counter";
    t.version = "1";
    t.create = create;
    t.free = destroy;
    t.step = step;
    t.hash = hash;
    t.check_input = check_input;
    t.stage_count = 2;
    t.stage_names = stage_names;
    t.run_stage = run_stage;
    return t;
}

} // namespace

#if defined(PLUGIN_ENTRY_IN_NAMESPACE)
namespace plugin {
// Not the declared function: a C++ function of the same name, exported as
// _ZN6plugin21onescope_module_entryEj.
ONESCOPE_MODULE_EXPORT const onescope_module *onescope_module_entry(std::uint32_t abi);
#endif

const onescope_module *onescope_module_entry(std::uint32_t abi) {
    static const onescope_module table = make_table();
    return abi == ONESCOPE_MODULE_ABI ? &table : nullptr;
}

#if defined(PLUGIN_ENTRY_IN_NAMESPACE)
} // namespace plugin
#endif
