/* onescope live serve|attach: a live-stream host writing to stdout and a viewer reading stdin.
 * A test-module world streams version 1; a module recording (OSTM v2) streams version 2, which
 * names its module, and attach follows it with the module --module loaded. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "testdata.h"

/* ---- serve ---- */

enum { S_DIMS, S_BODIES, S_SEED, S_REPLAY, S_STEPS, S_PROBE, S_LINK };
static const cli_option serve_options[] = {
    [S_DIMS] = {"dims", 0, "D", "2 or 3 (default 3)"},
    [S_BODIES] = {"bodies", 0, "N", "1 to 64 (default 8)"},
    [S_SEED] = {"seed", 0, "S", "the setup's seed (default 1)"},
    [S_REPLAY] = {"replay", 0, "FILE.ostm", "play a replay instead of the setup and script"},
    [S_STEPS] = {"steps", 0, "N", "steps to stream (default 1000, or the replay's)"},
    [S_PROBE] = {"probe-every", 0, "K", "a probe before every host step K divides (default 100)"},
    [S_LINK] = {"link", 0, "ROLE,BODY,STEP", "a link block"},
};
const cli_spec cli_spec_live_serve = {
    .name = "live serve",
    .operands = "[REC.ostm]",
    .about = "Runs a world and writes its live stream (docs/live-stream.md) to standard output:\n"
             "a probe, then one step record per step (its input and the host's hash after it),\n"
             "another probe before every step whose host step is a multiple of K (default 100;\n"
             "0: only the first probe), and an end record.\n"
             "Without --replay the world comes from the setup (default 3D, 8 bodies, seed 1)\n"
             "and plays the deterministic test-data input script seeded with the world's seed\n"
             "(default 1000 steps); --link gives it a link block. With --replay it starts where\n"
             "the replay starts and plays the replay's inputs (default all of them).\n"
             "With REC.ostm, a module recording (OSTM v2), it streams version 2: the stream\n"
             "names the recording's module (loaded with --module PATH.so), the first probe holds\n"
             "its setup blob and start snapshot, and the world is the module's, stepped with\n"
             "the recording's inputs. A later probe needs the module's snapshot: for a module\n"
             "without one, --probe-every 0. A v1 replay as REC.ostm is --replay REC.ostm.\n",
    .exit_codes = "0 streamed, 1 an unreadable replay or a failed write, 2 usage",
    .options = serve_options,
    .count = sizeof serve_options / sizeof serve_options[0],
};

static bool write_all(const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += (size_t)w;
        n -= (size_t)w;
    }
    return true;
}

/* Writes the encoder's pending bytes when there are at least `min` of them. */
static bool flush_encoder(onescope_live_encoder *enc, size_t min) {
    const uint8_t *p;
    size_t n;
    onescope_live_encoder_pending(enc, &p, &n);
    if (n < min || n == 0) return true;
    if (!write_all(p, n)) return false;
    onescope_live_encoder_clear(enc);
    return true;
}

/* Serves a module recording as a version-2 stream: the world from its setup (or restored
 * from its start snapshot), its inputs, the world's hash after each step. */
/* How a serve ended: its error line, or the standard output's write failure, or success. */
static int serve_status(onescope_code rc, bool io_failed, const onescope_error *err) {
    if (rc != ONESCOPE_OK) {
        cli_print_error(err);
        return CLI_FAIL;
    }
    if (io_failed) {
        fprintf(stderr, "onescope live serve: <stdout>: %s\n", strerror(errno));
        return CLI_FAIL;
    }
    return CLI_OK;
}

/* bytes: the whole input, read once by cmd_live_serve. */
static int serve_recording(const char *path, const onescope_buffer *bytes, bool have_steps,
                           uint64_t steps, uint64_t probe_every) {
    onescope_error err;
    onescope_recording *r = NULL;
    const onescope_module *m = NULL;
    const char *name = cli_shown(path);
    onescope_code rc =
        onescope_recording_parse(bytes->data, bytes->size, cli_input_name(path), NULL, &r, &err);
    if (rc == ONESCOPE_OK)
        rc = cli_module_for(onescope_recording_module_id(r), onescope_recording_module_version(r),
                            name, &m, &err);
    if (rc == ONESCOPE_OK) rc = onescope_recording_check(r, m, name, &err);
    if (rc == ONESCOPE_OK && have_steps && steps > onescope_recording_step_count(r)) {
        fprintf(stderr,
                "onescope live serve: %s has %" PRIu32 " steps, fewer than --steps %" PRIu64 "\n",
                name, onescope_recording_step_count(r), steps);
        onescope_recording_free(r);
        return CLI_FAIL;
    }
    if (rc == ONESCOPE_OK && !have_steps) steps = onescope_recording_step_count(r);
    size_t setup_size = 0, snap_size = 0;
    const uint8_t *setup = r ? onescope_recording_setup(r, &setup_size) : NULL;
    const uint8_t *snap = r ? onescope_recording_start_snapshot(r, &snap_size) : NULL;
    onescope_world *w = NULL;
    if (rc == ONESCOPE_OK)
        rc = snap != NULL
                 ? onescope_world_restore(m, setup, setup_size, snap, snap_size, NULL, &w, &err)
                 : onescope_world_create(m, setup, setup_size, NULL, &w, &err);
    onescope_live_encoder *enc = NULL;
    if (rc == ONESCOPE_OK)
        rc = onescope_live_encoder_create_module(m->id, m->version, NULL, &enc, &err);
    /* the first probe: the recording's start (no snapshot: the world the setup makes) */
    if (rc == ONESCOPE_OK)
        rc = onescope_live_encode_probe_blob(enc, 0, setup, setup_size, snap, snap_size, &err);
    bool io_failed = false;
    char where[160] = "";
    if (rc != ONESCOPE_OK && m != NULL && r != NULL) /* the start world, or its first probe */
        snprintf(where, sizeof where, "module %s, the start world", m->id);
    for (uint64_t i = 0; i < steps && rc == ONESCOPE_OK && !io_failed; i++) {
        snprintf(where, sizeof where, "module %s, step %" PRIu64, m->id, i);
        if (i > 0 && probe_every != 0 && i % probe_every == 0) {
            onescope_buffer b = {NULL, 0, NULL};
            rc = onescope_world_snapshot(w, NULL, &b, &err);
            if (rc == ONESCOPE_OK)
                rc = onescope_live_encode_probe_blob(
                    enc, i, setup, setup_size, b.data ? b.data : (const uint8_t *)"", b.size, &err);
            onescope_buffer_free(&b);
        }
        const uint8_t *input = NULL;
        size_t n = 0;
        if (rc == ONESCOPE_OK) rc = onescope_recording_step_input(r, (uint32_t)i, &input, &n);
        if (rc == ONESCOPE_OK) rc = onescope_world_step(w, input, n, &err);
        if (rc == ONESCOPE_OK)
            rc = onescope_live_encode_step(enc, i, input, n, onescope_world_hash(w), &err);
        if (rc == ONESCOPE_OK) io_failed = !flush_encoder(enc, 1 << 16);
    }
    /* the encoder's and the world's errors are the recording's, at its module and step; their
     * offsets are in the stream or inside an input, not in the recording */
    if (rc != ONESCOPE_OK && where[0] != '\0' && strcmp(err.input, cli_input_name(path)) != 0)
        onescope_error_locate(&err, cli_input_name(path), where, false);
    if (rc == ONESCOPE_OK && !io_failed) rc = onescope_live_encode_end(enc, steps, &err);
    if (rc == ONESCOPE_OK && !io_failed) io_failed = !flush_encoder(enc, 0);
    onescope_live_encoder_free(enc);
    onescope_world_free(w);
    onescope_recording_free(r);
    return serve_status(rc, io_failed, &err);
}

static int cmd_live_serve(int argc, char **argv) {
    onescope_sim_def def = onescope_sim_def_default();
    def.setup.dimensions = 3;
    def.setup.body_count = 8;
    def.setup.seed = 1;
    bool have_setup = false, have_steps = false, have_link = false;
    const char *replay_path = NULL;
    uint64_t steps = 1000, probe_every = 100, v;
    cli_args ca;
    int parsed = cli_parse(&cli_spec_live_serve, argc, argv, 0, 1, &ca);
    if (parsed != CLI_PARSE_RUN) return parsed;
    if (ca.seen[S_DIMS]) {
        if (!cli_parse_u64(ca.value[S_DIMS], 3, &v) || v < 2)
            return cli_usage_error("live serve", "--dims must be 2 or 3, not '%s'",
                                   ca.value[S_DIMS]);
        def.setup.dimensions = (uint8_t)v;
        have_setup = true;
    }
    if (ca.seen[S_BODIES]) {
        if (!cli_parse_u64(ca.value[S_BODIES], 64, &v) || v < 1)
            return cli_usage_error("live serve", "--bodies must be 1 to 64, not '%s'",
                                   ca.value[S_BODIES]);
        def.setup.body_count = (uint8_t)v;
        have_setup = true;
    }
    if (ca.seen[S_SEED]) {
        if (!cli_parse_u64(ca.value[S_SEED], UINT32_MAX, &v))
            return cli_usage_error("live serve", "--seed must be 0 to 4294967295, not '%s'",
                                   ca.value[S_SEED]);
        def.setup.seed = (uint32_t)v;
        have_setup = true;
    }
    if (ca.seen[S_REPLAY]) replay_path = ca.value[S_REPLAY];
    if (ca.operand_count == 1) {
        if (replay_path != NULL)
            return cli_usage_error("live serve", "give the replay once: --replay FILE or FILE");
        replay_path = ca.operands[0];
    }
    if (ca.seen[S_STEPS]) {
        if (!cli_parse_u64(ca.value[S_STEPS], UINT32_MAX, &steps))
            return cli_usage_error("live serve", "--steps must be a number, not '%s'",
                                   ca.value[S_STEPS]);
        have_steps = true;
    }
    if (ca.seen[S_PROBE] && !cli_parse_u64(ca.value[S_PROBE], UINT32_MAX, &probe_every))
        return cli_usage_error("live serve", "--probe-every must be a number, not '%s'",
                               ca.value[S_PROBE]);
    if (ca.seen[S_LINK]) {
        int32_t l[3];
        const char *val = ca.value[S_LINK];
        if (!cli_parse_i32_list(val, l, 3) || l[0] < 1 || l[0] > 3 || l[1] < 0 || l[1] > 63 ||
            l[2] < 0 || l[2] > 65535)
            return cli_usage_error("live serve",
                                   "--link must be ROLE,BODY,STEP (role 1-3, body 0-63, "
                                   "step 0-65535), not '%s'",
                                   val);
        def.link.role = (uint8_t)l[0];
        def.link.body = (uint8_t)l[1];
        def.link.transfer_step = (uint16_t)l[2];
        have_link = true;
    }
    if (replay_path != NULL && (have_setup || have_link))
        return cli_usage_error("live serve",
                               "--replay takes its setup and link from the file; drop --dims, "
                               "--bodies, --seed and --link");
    onescope_error err;
    onescope_replay *r = NULL;
    onescope_sim *sim = NULL;
    onescope_code rc;
    if (replay_path != NULL) {
        /* read once, whole: a module recording is told from a v1 replay by its bytes, never by
         * opening the input a second time */
        onescope_buffer in;
        rc = onescope_file_read(replay_path, 0, NULL, &in, &err);
        if (rc == ONESCOPE_OK &&
            onescope_format_detect(in.data, in.size) == ONESCOPE_FORMAT_RECORDING) {
            int status = serve_recording(replay_path, &in, have_steps, steps, probe_every);
            onescope_buffer_free(&in);
            return status;
        }
        if (rc == ONESCOPE_OK) {
            rc = onescope_replay_parse(in.data, in.size, cli_input_name(replay_path), NULL, &r,
                                       &err);
            onescope_buffer_free(&in);
        }
        if (rc == ONESCOPE_OK && have_steps && steps > onescope_replay_step_count(r)) {
            fprintf(stderr,
                    "onescope live serve: %s has %" PRIu32 " steps, fewer than --steps %" PRIu64
                    "\n",
                    cli_shown(replay_path), onescope_replay_step_count(r), steps);
            onescope_replay_free(r);
            return CLI_FAIL;
        }
        if (rc == ONESCOPE_OK && !have_steps) steps = onescope_replay_step_count(r);
        if (rc == ONESCOPE_OK) rc = onescope_replay_start_world(r, NULL, &sim, &err);
    } else {
        rc = onescope_sim_setup_check(&def.setup, have_link ? &def.link : NULL, "--link", &err);
        if (rc == ONESCOPE_OK) rc = onescope_sim_create(&def, NULL, &sim, &err);
    }
    testdata_script script = {0};
    script.dimensions = def.setup.dimensions;
    script.seed = def.setup.seed;
    onescope_live_encoder *enc = NULL;
    if (rc == ONESCOPE_OK) rc = onescope_live_encoder_create(NULL, &enc, &err);
    bool io_failed = false;
    for (uint64_t i = 0; i < steps && rc == ONESCOPE_OK && !io_failed; i++) {
        uint64_t host = onescope_sim_host_step(sim);
        if (i == 0 || (probe_every != 0 && host % probe_every == 0))
            rc = onescope_live_encode_probe(enc, sim, &err);
        uint8_t buf[TESTDATA_MAX_SCRIPT_INPUT];
        const uint8_t *input = buf;
        size_t n = 0;
        if (r != NULL) {
            if (rc == ONESCOPE_OK) rc = onescope_replay_step_input(r, (uint32_t)i, &input, &n);
        } else {
            n = testdata_script_input(&script, host, buf, sizeof buf);
        }
        if (rc == ONESCOPE_OK) rc = onescope_sim_step(sim, input, n, &err);
        if (rc == ONESCOPE_OK)
            rc = onescope_live_encode_step(enc, host, input, n, onescope_sim_hash(sim), &err);
        if (rc == ONESCOPE_OK) io_failed = !flush_encoder(enc, 1 << 16);
    }
    if (rc == ONESCOPE_OK && steps == 0) rc = onescope_live_encode_probe(enc, sim, &err);
    if (rc == ONESCOPE_OK && !io_failed)
        rc = onescope_live_encode_end(enc, onescope_sim_host_step(sim), &err);
    if (rc == ONESCOPE_OK && !io_failed) io_failed = !flush_encoder(enc, 0);
    onescope_live_encoder_free(enc);
    onescope_sim_free(sim);
    onescope_replay_free(r);
    return serve_status(rc, io_failed, &err);
}

/* ---- attach ---- */

enum { A_FROM, A_SAVE, A_JSON };
static const cli_option attach_options[] = {
    [A_FROM] = {"from", 0, "STEP", "start at the first probe at or after STEP (default 0)"},
    [A_SAVE] = {"save", 0, "OUT.ostm", "record what it saw as a replay"},
    [A_JSON] = {"json", 0, NULL, "one JSON document (docs/cli.md)"},
};
const cli_spec cli_spec_live_attach = {
    .name = "live attach",
    .operands = "",
    .about =
        "Reads a live stream from standard input, starts its world at the first probe at or\n"
        "after host step STEP (default 0), runs every step record and checks its own world\n"
        "hash against the host's. Prints 'step S hash H' for the probe's step and after each\n"
        "step (not with -q; --json: one document {\"from\", \"rows\": [{\"step\", \"hash\"}],\n"
        "\"steps\"}, -q or not).\n"
        "A version-2 stream names its module: attach runs the module --module loaded (the\n"
        "test module without one) and refuses a stream of another id or version.\n"
        "--save records what it saw as an OSTM replay (start snapshot, inputs, hash rows)\n"
        "(a version-2 stream: an OSTM v2 module recording)\n"
        "as it goes, into OUT.partial, and puts OUT in place once the stream has ended\n"
        "cleanly; memory does not grow with the steps. A stream whose recording would pass\n"
        "the format's 256 MiB is refused at the step that would. After a bad or refused\n"
        "stream (or a kill) OUT is untouched and OUT.partial holds every step checked:\n"
        "'onescope recover OUT.partial' turns it into a replay.\n",
    .exit_codes = "0 every hash matched and the stream ended; 1 a hash disagreement, a bad or "
                  "truncated stream, no probe at or after STEP, OUT refused; 2 usage",
    .options = attach_options,
    .count = sizeof attach_options / sizeof attach_options[0],
    .writes = true,
};

typedef struct attach_print {
    bool json;
    uint64_t rows;
} attach_print;

static void print_row(void *user, const onescope_live_row *row) {
    attach_print *p = user;
    if (p->json)
        printf("%s\n    {\"step\": %" PRIu64 ", \"hash\": \"%016" PRIx64 "\"}", p->rows ? "," : "",
               row->step, row->hash);
    else if (!cli.quiet)
        printf("step %" PRIu64 " hash %016" PRIx64 "\n", row->step, row->hash);
    p->rows++;
}

/* The bytes read from standard input before the viewer exists. */
typedef struct peeked {
    uint8_t *data;
    size_t size;
    bool eof;
} peeked;

/* Reads standard input until its first record is whole (or the input ends or is malformed:
 * the viewer then says so), and sets *module to the module that record names when the CLI
 * knows it. false: a read failed (errno). */
static bool peek_module(peeked *h, const onescope_module **module) {
    onescope_live_decoder *d;
    onescope_error err;
    if (onescope_live_decoder_create("<stdin>", NULL, &d, &err) != ONESCOPE_OK) return true;
    size_t cap = 0;
    bool ok = true;
    for (int got = 0; got == 0;) {
        if (h->size == cap) {
            size_t more = cap ? 2 * cap : 1 << 16;
            uint8_t *p = realloc(h->data, more);
            if (p == NULL) break; /* the viewer reads the rest as it comes */
            h->data = p;
            cap = more;
        }
        ssize_t n = read(STDIN_FILENO, h->data + h->size, cap - h->size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ok = false;
            break;
        }
        if (n == 0) {
            h->eof = true;
            break;
        }
        size_t used = 0;
        onescope_live_record rec;
        got = onescope_live_decoder_next(d, h->data + h->size, (size_t)n, &used, &rec, &err);
        h->size += (size_t)n;
        if (got == 1) {
            const onescope_module *m = cli_module_find(rec.module_id);
            if (m != NULL) *module = m;
        }
    }
    onescope_live_decoder_free(d);
    return ok;
}

static int cmd_live_attach(int argc, char **argv) {
    onescope_live_viewer_options o = onescope_live_viewer_options_default();
    const char *save = NULL;
    attach_print p = {false, 0};
    cli_args ca;
    int parsed = cli_parse(&cli_spec_live_attach, argc, argv, 0, 0, &ca);
    if (parsed != CLI_PARSE_RUN) return parsed;
    p.json = ca.seen[A_JSON];
    if (ca.seen[A_FROM] && !cli_parse_u64(ca.value[A_FROM], UINT64_MAX, &o.from_step))
        return cli_usage_error("live attach", "--from must be a step number, not '%s'",
                               ca.value[A_FROM]);
    if (ca.seen[A_SAVE]) {
        save = ca.value[A_SAVE];
        /* the input is standard input: OUT may not be the file it was redirected from */
        if (!cli_check_output("live attach", "-", save)) return CLI_FAIL;
    }
    o.module = cli_module_only();
    if (o.module == NULL) {
        char names[512];
        return cli_usage_error("live attach",
                               "follows one module, and %s are loaded: give one --module",
                               cli_module_names(names, sizeof names));
    }
    /* Without --module, the stream's first record says which module: one the CLI knows by its
     * id (the Box3D module's streams need no flag). The bytes read to learn it are fed first. */
    peeked head = {NULL, 0, false};
    if (!cli_module_loaded_any() && !peek_module(&head, &o.module)) {
        fprintf(stderr, "onescope live attach: <stdin>: %s\n", strerror(errno));
        free(head.data);
        return CLI_FAIL;
    }
    o.save_path = save;
    o.on_row = print_row;
    o.user = &p;
    onescope_error err;
    onescope_live_viewer *view;
    if (onescope_live_viewer_create(&o, "<stdin>", NULL, &view, &err) != ONESCOPE_OK) {
        cli_print_error(&err);
        return CLI_FAIL;
    }
    if (p.json) printf("{\n  \"from\": %" PRIu64 ",\n  \"rows\": [", o.from_step);
    static uint8_t buf[1 << 16];
    onescope_code rc = ONESCOPE_OK;
    bool read_failed = false;
    if (head.size > 0) rc = onescope_live_viewer_feed(view, head.data, head.size, &err);
    free(head.data);
    for (; rc == ONESCOPE_OK && !head.eof;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            read_failed = true;
            break;
        }
        if (n == 0) break;
        rc = onescope_live_viewer_feed(view, buf, (size_t)n, &err);
        if (rc != ONESCOPE_OK) break;
        if (!p.json) fflush(stdout);
    }
    if (read_failed) {
        fprintf(stderr, "onescope live attach: <stdin>: %s\n", strerror(errno));
        rc = ONESCOPE_E_IO;
        err.code = ONESCOPE_OK;
    } else if (rc == ONESCOPE_OK) {
        rc = onescope_live_viewer_finish(view, &err); /* with --save: OUT appears here */
    }
    /* "ok" only once everything, the saved file included, is done. */
    uint64_t steps = onescope_live_viewer_steps(view);
    if (p.json)
        printf("\n  ],\n  \"steps\": %" PRIu64 ",\n  \"ok\": %s\n}\n", steps,
               rc == ONESCOPE_OK ? "true" : "false");
    fflush(stdout);
    onescope_live_viewer_free(view);
    if (rc != ONESCOPE_OK) {
        if (err.code != ONESCOPE_OK) cli_print_error(&err);
        return CLI_FAIL;
    }
    if (!cli.quiet)
        fprintf(stderr, "onescope live attach: %" PRIu64 " steps checked, every hash matched%s%s\n",
                steps, save ? ", saved " : "", save ? save : "");
    return CLI_OK;
}

/* ---- dispatcher ---- */

static void live_help(FILE *out) {
    fprintf(out, "usage: onescope live serve|attach [ARGS...]\n"
                 "  serve   run a world and write its live stream to standard output\n"
                 "  attach  read a live stream from standard input and check every hash\n"
                 "'onescope live serve --help' and 'onescope live attach --help' say more.\n");
}

int cmd_live(int argc, char **argv) {
    static const cli_spec spec = {
        .name = "live",
        .operands = "serve|attach",
        .stop_at_operand = true, /* the subcommand reads its own options */
        .print_help = live_help,
    };
    cli_args a;
    int parsed = cli_parse(&spec, argc, argv, 1, -1, &a);
    if (parsed != CLI_PARSE_RUN) return parsed;
    if (a.dashdash) cli_operands_only = true;
    const char *sub = a.operands[0];
    if (strcmp(sub, "serve") == 0) return cmd_live_serve(a.operand_count - 1, a.operands + 1);
    if (strcmp(sub, "attach") == 0) return cmd_live_attach(a.operand_count - 1, a.operands + 1);
    return cli_usage_error("live", "unknown subcommand '%s' (serve or attach)", sub);
}
