/* Shared pieces of the onescope CLI. Each command is one function in its own file. */
#ifndef ONESCOPE_CLI_H
#define ONESCOPE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "onescope/onescope.h"

/* Exit codes of the CLI contract. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Global flags every command accepts. */
typedef struct cli_globals {
    bool quiet;      /* -q: no progress or success lines */
    bool verbose;    /* -v: timings and counts on stderr */
    bool no_clobber; /* -n: an existing output is refused (cli_check_output) */
} cli_globals;
extern cli_globals cli;

/* A file format the generic commands (validate, dump, rewrite) understand. Which one a file
 * is comes from the library's onescope_format_detect; its name from onescope_format_name. */
typedef struct cli_format {
    onescope_format format;
    onescope_code (*validate)(const uint8_t *data, size_t size, const char *name,
                              onescope_error *error);
    /* Prints the human or JSON dump to out. */
    onescope_code (*dump)(const uint8_t *data, size_t size, const char *name, bool json, FILE *out,
                          onescope_error *error);
    /* Parses and writes again with the library's writer. */
    onescope_code (*rewrite)(const uint8_t *data, size_t size, const char *name,
                             onescope_buffer *out, onescope_error *error);
} cli_format;

extern const cli_format cli_format_ospc;
extern const cli_format cli_format_ostm;
extern const cli_format cli_format_pvt;
extern const cli_format cli_format_anm;
extern const cli_format cli_format_osls;
/* dump --poses (fmt_ospc.c): takes dump's arguments, prints pose values; returns the exit code. */
int cli_ospc_dump_poses(int argc, char **argv);

/* The format of data (onescope_format_detect), or NULL (an error naming the input is
 * filled). */
const cli_format *cli_detect_format(const uint8_t *data, size_t size, const char *name,
                                    onescope_error *error);

/* ---- modules (cli_module.c) ----
 * The test module is always there; onescope_cli_main adds an engine's linked modules and
 * `--module PATH` a plug-in's. Each returns false after one line on stderr. */
bool cli_module_add(const onescope_module *module, const char *origin);
bool cli_module_load(const char *path);
/* The module whose id this is, or NULL. */
const onescope_module *cli_module_find(const char *id);
/* For a command that runs one module without a file to name it (live attach): the only module
 * besides the test module, the test module when there is none, NULL when there are several. */
const onescope_module *cli_module_only(void);
/* true when a module other than the test module was loaded or added. */
bool cli_module_loaded_any(void);
/* "ID VERSION, ID VERSION, ...": every module there is, into buf. */
const char *cli_module_names(char *buf, size_t size);
/* The module a recording names, or ONESCOPE_E_MODULE at offset 12 naming the file, its module
 * and the modules there are. */
onescope_code cli_module_for(const char *id, const char *version, const char *name,
                             const onescope_module **out, onescope_error *error);

/* What a module recording's world says about drawing it: the one way plot and view open one.
 * The module it names (cli_module_for), the recording checked against it (its setup refused
 * at its file offset), then one world made for its table's copy: members past a plug-in's
 * struct_size read 0 there, never past its table. A module without entities is refused in one
 * line ending "to VERB". */
typedef struct cli_recording_shape {
    const onescope_module *module;
    uint8_t dimensions; /* 2 or 3 */
    bool unitless;      /* metres_per_unit 0 */
    double scale;       /* metres per unit (1 when unitless) */
    const char *unit;
    uint32_t entities; /* in the start world */
    uint32_t values;   /* named values per entity (0 without entity_values) */
} cli_recording_shape;
onescope_code cli_recording_shape_of(const onescope_recording *r, const char *name,
                                     const char *verb, cli_recording_shape *out,
                                     onescope_error *error);

extern const cli_format cli_format_recording;

/* One input plot and view draw: a test-module replay, a module recording (with its shape) or
 * a pose cache, through the library's read path and detection. */
typedef struct cli_drawable {
    const char *name;  /* cli_input_name(path) */
    const char *label; /* the file name without its folder, for titles and legends */
    onescope_replay *replay;
    onescope_recording *rec;
    onescope_pose_cache *cache;
    /* Every format's: a replay's in millimetres (scale 0.001, its bodies at the start as
     * entities, its velocity as values), a cache's from its header (unit: its unit name, or
     * "unit" when unitless), a recording's as cli_recording_shape_of says. */
    cli_recording_shape shape;
    int64_t first, last; /* the host steps it holds, inclusive */
} cli_drawable;
typedef struct cli_drawable_rules {
    const char *command;      /* "plot": the verb of a module without entities */
    const char *draws;        /* "plot draws": the refusal of another format */
    bool map;                 /* a cache is mapped (its limit the format's), not read */
    const char *no_recording; /* non-NULL: a recording is refused, expecting this */
} cli_drawable_rules;
/* Opens path into d (zeroed first); false after one line on stderr. A replay whose host
 * steps pass INT64_MAX is refused (tools draw steps as int64_t). */
bool cli_drawable_open(cli_drawable *d, const char *path, const cli_drawable_rules *rules);
void cli_drawable_close(cli_drawable *d);

/* Step index's input as the module describes it, into buf (empty when the module has no
 * describe_input or cannot say). */
void cli_recording_describe_step(const onescope_recording *r, const onescope_module *m,
                                 uint32_t index, char *buf, size_t size);

/* Prints the error as one line on stderr. */
void cli_print_error(const onescope_error *error);
/* Prints "onescope CMD: message" on stderr and returns CLI_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* True (after printing why) when OUT names the same file as IN; "-" is never the same file. */
bool cli_refuse_same_file(const char *command, const char *in, const char *out);
/* The one overwrite rule (docs/cli.md): true when the command may write OUT. False, after one
 * line on stderr, when OUT is the input IN (IN may be NULL) or, under -n/--no-clobber, when OUT
 * already exists. "-" (standard output) is always allowed. Every command that writes calls it
 * before it reads its input, so a refused run does no work. */
bool cli_check_output(const char *command, const char *in, const char *out);
/* cli_check_output for a command with several inputs (NULL entries are skipped): OUT is
 * refused when it is any of them. */
bool cli_check_outputs(const char *command, const char *const *ins, size_t count, const char *out);
/* True when arg is -h or --help. */
bool cli_is_help(const char *arg);
/* Name used for "-" in messages. */
const char *cli_input_name(const char *path);
/* The name as a person sees it in the CLI's own lines (not in library errors, which escape
 * the input name themselves): cli_input_name, escaped (onescope_error_escape), so a file name
 * holding a newline or an escape sequence cannot forge or colour a line. */
const char *cli_shown(const char *path);

/* An input opened exactly once (onescope_file_open_input: a regular file's own descriptor, a
 * stream spooled from its one open; a FIFO waits for its writer). Every library call of the
 * command then reads src, "/dev/fd/N", which names that open file, never path again. */
typedef struct cli_input {
    const char *path; /* as given ("-": standard input) */
    int fd;           /* -1 when not open */
    char src[32];     /* "/dev/fd/N" */
} cli_input;
/* Opens path into in; false after one line on stderr naming the input. */
bool cli_input_open(cli_input *in, const char *path);
/* The same, the error left in err instead of printed. */
onescope_code cli_input_try(cli_input *in, const char *path, onescope_error *err);
/* Closes in (a closed or never opened one is fine). */
void cli_input_close(cli_input *in);
/* An error the library built naming in's src names the input as given instead. */
void cli_input_rename(const cli_input *in, onescope_error *err);

/* JSON output helpers: a quoted, escaped string, always valid UTF-8 (valid characters kept,
 * each byte that is not UTF-8 written as the text \xNN); the shortest double that reads back
 * equal. */
void cli_json_string(FILE *out, const char *s, size_t n);
void cli_json_double(FILE *out, double v);
/* v as text for a line of output (the library's shortest decimal, "nan" and "inf" as they
 * are); returns buf. */
#define CLI_NUMBER_SIZE (ONESCOPE_NUMBER_MAX_LENGTH + 1)
const char *cli_number(char buf[CLI_NUMBER_SIZE], double v);
/* The same for a float: its own shortest text ("0.1", not the double's "0.10000000149011612"). */
const char *cli_number_float(char buf[CLI_NUMBER_SIZE], float v);
/* XML character data or attribute text, well-formed whatever the bytes: valid UTF-8 kept, each
 * byte that is not UTF-8 replaced by U+FFFD, characters XML 1.0 forbids dropped. */
void cli_xml_text(FILE *out, const char *s, size_t n);

/* --entity LIST of plot and view: ids or names, comma-separated (at most 64). */
typedef struct cli_entity_filter {
    char *tokens[64];
    bool matched[64];
    int count; /* 0: every entity passes */
} cli_entity_filter;
/* false for an empty item or more than 64 (nothing is kept then). */
bool cli_entity_filter_parse(cli_entity_filter *f, const char *list);
/* Every entity without a filter; else one whose id (in decimal) or name a token is. */
bool cli_entity_filter_pass(cli_entity_filter *f, uint64_t id, const char *name, size_t name_len);
/* The first token no entity matched, or NULL. */
const char *cli_entity_filter_unmatched(const cli_entity_filter *f);
void cli_entity_filter_free(cli_entity_filter *f);

/* A decimal number 0..max with nothing else around it. */
bool cli_parse_u64(const char *s, uint64_t max, uint64_t *out);
/* count comma-separated decimal i32 values ("400,0,0"), nothing else. */
bool cli_parse_i32_list(const char *s, int32_t *out, size_t count);

#include "args.h"

#include "args.h"

#endif
