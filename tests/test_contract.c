/* The entry points' contract (issue 14, item 7): every public function returning
 * onescope_code, given NULL or bad arguments, returns a code that is not OK, equals the
 * error's code, and formats as one printable line; the same call without an error struct
 * returns the same code and does not crash. Functions returning pointers or values give
 * NULL / 0 for NULL objects. tests/contract_complete.sh fails when a declaration in
 * include/onescope/ returning onescope_code has no row here. */
#include <ctype.h>
#include <string.h>

#include "test_util.h"

/* One row per entry point: CALL(name, arguments...) where the arguments may use `e`, the
 * error struct (NULL in the second run). */
typedef onescope_code (*contract_fn)(onescope_error *e);
typedef struct contract_row {
    const char *name;
    contract_fn call;
    bool has_error; /* false: the function takes no error struct */
} contract_row;

#define CALL(fn, ...)                                                                              \
    static onescope_code call_##fn(onescope_error *e) {                                            \
        (void)e;                                                                                   \
        return fn(__VA_ARGS__);                                                                    \
    }
#define ROW(fn)                                                                                    \
    { #fn, call_##fn, true }
#define ROW_NO_ERROR(fn)                                                                           \
    { #fn, call_##fn, false }

static uint8_t bytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* ---- module.h: module check ---- */
CALL(onescope_module_check_run, NULL, NULL, 0, NULL, NULL, NULL, e)

/* ---- file.h ---- */
CALL(onescope_file_read, NULL, 0, NULL, NULL, e)
CALL(onescope_file_write, "x", NULL, 5, e)
CALL(onescope_file_validate, NULL, NULL, NULL, e)
CALL(onescope_file_spool, NULL, NULL, NULL, e)
CALL(onescope_file_open_input, NULL, NULL, NULL, e)
/* ---- ghost.h ---- */
CALL(onescope_ghost_create, NULL, NULL, NULL, NULL, e)
CALL(onescope_ghost_recording_create, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_ghost_recording_write, NULL, NULL, NULL, NULL, NULL, NULL, NULL, e)
/* ---- live.h ---- */
CALL(onescope_live_decoder_create, "s", NULL, NULL, e)
CALL(onescope_live_decoder_finish, NULL, e)
CALL(onescope_live_decode, NULL, 5, "s", NULL, NULL, NULL, e)
CALL(onescope_live_encoder_create, NULL, NULL, e)
CALL(onescope_live_encoder_create_module, NULL, "1", NULL, NULL, e)
CALL(onescope_live_encode_probe_blob, NULL, 0, NULL, 0, NULL, 0, e)
CALL(onescope_live_encode_probe, NULL, NULL, e)
CALL(onescope_live_encode_probe_parts, NULL, NULL, NULL, NULL, 0, e)
CALL(onescope_live_encode_step, NULL, 0, NULL, 0, 0, e)
CALL(onescope_live_encode_end, NULL, 0, e)
CALL(onescope_live_encoder_take, NULL, NULL, e)
CALL(onescope_live_viewer_create, NULL, "s", NULL, NULL, e)
CALL(onescope_live_viewer_apply, NULL, NULL, e)
CALL(onescope_live_viewer_feed, NULL, bytes, 4, e)
CALL(onescope_live_viewer_finish, NULL, e)
CALL(onescope_live_viewer_replay, NULL, NULL, NULL, e)
/* ---- ots.h ---- */
CALL(onescope_ots_rig_parse, NULL, 4, "r", NULL, NULL, e)
CALL(onescope_ots_clip_parse, NULL, 4, "c", NULL, NULL, e)
CALL(onescope_ots_rig_create, 1, 1, NULL, NULL, e)
CALL(onescope_ots_clip_create, 1, 1, NULL, NULL, e)
CALL(onescope_ots_rig_set_name, NULL, "n", e)
CALL(onescope_ots_rig_set_bone_text, NULL, 0, ONESCOPE_OTS_TEXT_NAME, "n", e)
CALL(onescope_ots_rig_set_camera_text, NULL, 0, ONESCOPE_OTS_TEXT_NAME, "n", e)
CALL(onescope_ots_clip_set_peg_text, NULL, 0, ONESCOPE_OTS_TEXT_NAME, "n", e)
CALL(onescope_ots_clip_set_camera_text, NULL, 0, ONESCOPE_OTS_TEXT_NAME, "n", e)
CALL(onescope_ots_clip_set_keyframe_count, NULL, 0, 1, e)
CALL(onescope_ots_rig_validate, NULL, "r", e)
CALL(onescope_ots_clip_validate, NULL, "c", e)
CALL(onescope_ots_rig_write, NULL, NULL, NULL, e)
CALL(onescope_ots_clip_write, NULL, NULL, NULL, e)
CALL(onescope_ots_clip_to_pose_cache, NULL, NULL, NULL, NULL, e)
CALL(onescope_ots_clip_from_pose_cache, NULL, NULL, NULL, NULL, e)
CALL(onescope_ots_anm_to_pose_cache, NULL, 4, "a", NULL, NULL, NULL, e)
CALL(onescope_ots_pose_cache_to_anm, NULL, NULL, NULL, NULL, e)
/* ---- module.h ---- */
CALL(onescope_module_sink_append, NULL, bytes, 4)
CALL(onescope_module_fail, e, ONESCOPE_E_ENGINE, 0, "f", "x", "y")
CALL(onescope_module_check, NULL, "m", e)
CALL(onescope_module_load, NULL, NULL, e)
CALL(onescope_world_create, NULL, bytes, 6, NULL, NULL, e)
CALL(onescope_world_restore, onescope_module_test(), bytes, 6, NULL, 0, NULL, NULL, e)
CALL(onescope_world_step, NULL, NULL, 0, e)
CALL(onescope_world_run_stage, NULL, NULL, 0, e)
CALL(onescope_world_snapshot, NULL, NULL, NULL, e)
CALL(onescope_world_entity_values, NULL, 0, NULL, 0, e)
CALL(onescope_world_values, NULL, NULL, 0, e)
CALL(onescope_world_describe_input, NULL, NULL, 0, NULL, NULL, e)
/* ---- recording.h ---- */
CALL(onescope_recording_parse, NULL, 4, "r", NULL, NULL, e)
CALL(onescope_recording_read_file, NULL, NULL, NULL, e)
CALL(onescope_recording_peek_module, NULL, 4, "r", NULL, NULL, e)
CALL(onescope_recording_step_input, NULL, 0, NULL, NULL)
CALL(onescope_recording_write, NULL, NULL, NULL, e)
CALL(onescope_recording_check, NULL, onescope_module_test(), "r", e)
CALL(onescope_recording_verify, NULL, onescope_module_test(), NULL, NULL, "r", e)
CALL(onescope_recording_run, NULL, onescope_module_test(), NULL, NULL, NULL, "r", e)
CALL(onescope_recording_diff, NULL, NULL, onescope_module_test(), NULL, NULL, "a", "b", e)
CALL(onescope_recording_writer_open, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_recording_writer_append, NULL, NULL, 0, NULL, e)
CALL(onescope_recording_writer_append_world, NULL, NULL, 0, NULL, NULL, e)
CALL(onescope_recording_verify_file, NULL, onescope_module_test(), NULL, NULL, e)
CALL(onescope_recording_explain, NULL, onescope_module_test(), 0, 0, NULL, NULL, "r", e)
CALL(onescope_recording_entity_row, NULL, 0, NULL)
CALL(onescope_recording_keyframe, NULL, 0, NULL)
CALL(onescope_recording_value_name, NULL, 0, NULL)
CALL(onescope_world_entity_digest, NULL, 0, NULL, NULL, 0, e)
CALL(onescope_recording_writer_flush, NULL, e)
CALL(onescope_recording_writer_close, NULL, NULL, e)
CALL(onescope_recording_recover, NULL, NULL, NULL, NULL, NULL, e)
/* ---- pose_cache.h ---- */
CALL(onescope_pose_cache_parse, NULL, 4, "p", NULL, NULL, e)
CALL(onescope_pose_cache_create, 7, 1, 1, NULL, NULL, e)
CALL(onescope_pose_cache_set_text, NULL, ONESCOPE_POSE_TEXT_UNIT_NAME, "m", 1, e)
CALL(onescope_pose_cache_set_entity_name, NULL, 0, "n", 1, e)
CALL(onescope_pose_cache_validate, NULL, "p", e)
CALL(onescope_pose_cache_write, NULL, NULL, NULL, e)
CALL(onescope_pose_cache_head_size, NULL, NULL, e)
CALL(onescope_pose_cache_read_file, NULL, NULL, NULL, e)
CALL(onescope_pose_cache_map, NULL, NULL, NULL, e)
CALL(onescope_pose_cache_write_file, NULL, "never-written.ospc", e)
CALL(onescope_pose_cache_set_pose, NULL, 0, 0, NULL, e)
CALL(onescope_pose_writer_open, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_pose_writer_append, NULL, NULL, 0, e)
CALL(onescope_pose_writer_flush, NULL, e)
CALL(onescope_pose_writer_close, NULL, NULL, e)
CALL(onescope_pose_cache_recover, NULL, NULL, NULL, NULL, e)
/* ---- replay.h ---- */
CALL(onescope_replay_parse, NULL, 4, "r", NULL, NULL, e)
CALL(onescope_replay_create, NULL, NULL, NULL, NULL, e)
CALL(onescope_replay_set_start_snapshot, NULL, bytes, 4, e)
CALL(onescope_replay_append_step, NULL, bytes, 1, e)
CALL(onescope_replay_append_ops, NULL, NULL, 1, e)
CALL(onescope_replay_set_hash_rows, NULL, NULL, 1, e)
CALL(onescope_replay_compute_hash_rows, NULL, e)
CALL(onescope_replay_step_input, NULL, 0, NULL, NULL)
CALL(onescope_replay_validate, NULL, "r", e)
CALL(onescope_replay_write, NULL, NULL, NULL, e)
CALL(onescope_replay_read_file, NULL, NULL, NULL, e)
CALL(onescope_replay_write_file, NULL, "never-written.ostm", e)
CALL(onescope_replay_start_world, NULL, NULL, NULL, e)
CALL(onescope_replay_run, NULL, NULL, NULL, NULL, e)
CALL(onescope_replay_verify, NULL, NULL, NULL, "r", e)
/* ---- sim.h ---- */
CALL(onescope_sim_setup_check, NULL, NULL, "s", e)
CALL(onescope_sim_setup_decode, NULL, 6, "s", 0, NULL, e)
CALL(onescope_op_check_input, 9, bytes, 1, "s", 0, e)
CALL(onescope_sim_create, NULL, NULL, NULL, e)
CALL(onescope_sim_create_from_snapshot, NULL, NULL, 0, "s", NULL, NULL, e)
CALL(onescope_sim_snapshot_check, NULL, NULL, 0, "s", 0, e)
CALL(onescope_sim_step, NULL, NULL, 0, e)
CALL(onescope_sim_run_stage, NULL, NULL, 0, e)
CALL(onescope_sim_body, NULL, 0, NULL)
CALL(onescope_sim_field, NULL, 0, NULL, 0, e)
/* ---- soa_scene.h ---- */
CALL(onescope_soa_scene_parse, NULL, 4, "s", NULL, NULL, e)
CALL(onescope_soa_scene_create_world, NULL, NULL, NULL, e)
CALL(onescope_soa_scene_record, NULL, 1, NULL, NULL, e)
/* ---- soa_world.h ---- */
CALL(onescope_soa_world_create, NULL, NULL, NULL, e)
CALL(onescope_soa_world_add_body, NULL, NULL, NULL, e)
CALL(onescope_soa_world_remove_body, NULL, 0, e)
CALL(onescope_soa_world_act, NULL, 0, 1, NULL, e)
CALL(onescope_soa_world_set_transform, NULL, 0, NULL, NULL, e)
CALL(onescope_soa_world_add_joint, NULL, NULL, NULL, e)
CALL(onescope_soa_world_step, NULL, 1.0f / 60.0f, 4, e)
CALL(onescope_soa_world_view, NULL, NULL, e)
CALL(onescope_soa_world_record, NULL, 1, 1.0f / 60.0f, 4, NULL, NULL, NULL, NULL, e)

/* ---- added in the recording, diagnosing and streaming work ---- */
CALL(onescope_diff_cache_files, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_diff_caches, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_diff_replay_cache, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_diff_replay_cache_file, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_diff_replays, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_ghost_write, NULL, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_ots_anm_to_pose_cache_file, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, e)
CALL(onescope_ots_anm_file_to_pose_cache_file, NULL, NULL, NULL, "x.ospc", NULL, NULL, e)
CALL(onescope_ots_pose_cache_to_anm_file, NULL, NULL, "x.anm", e)
CALL(onescope_replay_recover, NULL, NULL, NULL, NULL, e)
CALL(onescope_replay_verify_file, NULL, NULL, NULL, e)
CALL(onescope_replay_step_input_file, NULL, NULL, 0, NULL, NULL, e)
CALL(onescope_replay_writer_append, NULL, NULL, 0, NULL, e)
CALL(onescope_replay_writer_close, NULL, NULL, e)
CALL(onescope_replay_writer_flush, NULL, e)
CALL(onescope_replay_writer_open, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, e)
CALL(onescope_soa_world_poses, NULL, NULL, 0, e)

static const contract_row rows[] = {
    ROW(onescope_module_check_run),
    ROW(onescope_file_read),
    ROW(onescope_diff_cache_files),
    ROW(onescope_diff_caches),
    ROW(onescope_diff_replay_cache),
    ROW(onescope_diff_replay_cache_file),
    ROW(onescope_diff_replays),
    ROW(onescope_ghost_write),
    ROW(onescope_ots_anm_to_pose_cache_file),
    ROW(onescope_ots_anm_file_to_pose_cache_file),
    ROW(onescope_ots_pose_cache_to_anm_file),
    ROW(onescope_replay_recover),
    ROW(onescope_replay_verify_file),
    ROW(onescope_replay_step_input_file),
    ROW(onescope_replay_writer_append),
    ROW(onescope_replay_writer_close),
    ROW(onescope_replay_writer_flush),
    ROW(onescope_replay_writer_open),
    ROW(onescope_soa_world_poses),
    ROW(onescope_file_write),
    ROW(onescope_file_validate),
    ROW(onescope_file_spool),
    ROW(onescope_file_open_input),
    ROW(onescope_ghost_create),
    ROW(onescope_ghost_recording_create),
    ROW(onescope_ghost_recording_write),
    ROW(onescope_live_decoder_create),
    ROW(onescope_live_decoder_finish),
    ROW(onescope_live_decode),
    ROW(onescope_live_encoder_create),
    ROW(onescope_live_encoder_create_module),
    ROW(onescope_live_encode_probe_blob),
    ROW(onescope_live_encode_probe),
    ROW(onescope_live_encode_probe_parts),
    ROW(onescope_live_encode_step),
    ROW(onescope_live_encode_end),
    ROW(onescope_live_encoder_take),
    ROW(onescope_live_viewer_create),
    ROW(onescope_live_viewer_apply),
    ROW(onescope_live_viewer_feed),
    ROW(onescope_live_viewer_finish),
    ROW(onescope_live_viewer_replay),
    ROW(onescope_ots_rig_parse),
    ROW(onescope_ots_clip_parse),
    ROW(onescope_ots_rig_create),
    ROW(onescope_ots_clip_create),
    ROW(onescope_ots_rig_set_name),
    ROW(onescope_ots_rig_set_bone_text),
    ROW(onescope_ots_rig_set_camera_text),
    ROW(onescope_ots_clip_set_peg_text),
    ROW(onescope_ots_clip_set_camera_text),
    ROW(onescope_ots_clip_set_keyframe_count),
    ROW(onescope_ots_rig_validate),
    ROW(onescope_ots_clip_validate),
    ROW(onescope_ots_rig_write),
    ROW(onescope_ots_clip_write),
    ROW(onescope_ots_clip_to_pose_cache),
    ROW(onescope_ots_clip_from_pose_cache),
    ROW(onescope_ots_anm_to_pose_cache),
    ROW(onescope_ots_pose_cache_to_anm),
    ROW(onescope_pose_cache_parse),
    ROW(onescope_pose_cache_create),
    ROW(onescope_pose_cache_set_text),
    ROW(onescope_pose_cache_set_entity_name),
    ROW(onescope_pose_cache_validate),
    ROW(onescope_pose_cache_write),
    ROW(onescope_pose_cache_head_size),
    ROW_NO_ERROR(onescope_module_sink_append),
    ROW(onescope_module_fail),
    ROW(onescope_module_check),
    ROW(onescope_module_load),
    ROW(onescope_world_create),
    ROW(onescope_world_restore),
    ROW(onescope_world_step),
    ROW(onescope_world_run_stage),
    ROW(onescope_world_snapshot),
    ROW(onescope_world_entity_values),
    ROW(onescope_world_values),
    ROW(onescope_world_describe_input),
    ROW(onescope_recording_parse),
    ROW(onescope_recording_read_file),
    ROW(onescope_recording_peek_module),
    ROW_NO_ERROR(onescope_recording_step_input),
    ROW(onescope_recording_write),
    ROW(onescope_recording_check),
    ROW(onescope_recording_verify),
    ROW(onescope_recording_run),
    ROW(onescope_recording_diff),
    ROW(onescope_recording_writer_open),
    ROW(onescope_recording_writer_append),
    ROW(onescope_recording_writer_append_world),
    ROW(onescope_recording_verify_file),
    ROW(onescope_recording_explain),
    ROW_NO_ERROR(onescope_recording_entity_row),
    ROW_NO_ERROR(onescope_recording_keyframe),
    ROW_NO_ERROR(onescope_recording_value_name),
    ROW(onescope_world_entity_digest),
    ROW(onescope_recording_writer_flush),
    ROW(onescope_recording_writer_close),
    ROW(onescope_recording_recover),
    ROW(onescope_pose_cache_read_file),
    ROW(onescope_pose_cache_map),
    ROW(onescope_pose_cache_write_file),
    ROW(onescope_pose_cache_set_pose),
    ROW(onescope_pose_writer_open),
    ROW(onescope_pose_writer_append),
    ROW(onescope_pose_writer_flush),
    ROW(onescope_pose_writer_close),
    ROW(onescope_pose_cache_recover),
    ROW(onescope_replay_parse),
    ROW(onescope_replay_create),
    ROW(onescope_replay_set_start_snapshot),
    ROW(onescope_replay_append_step),
    ROW(onescope_replay_append_ops),
    ROW(onescope_replay_set_hash_rows),
    ROW(onescope_replay_compute_hash_rows),
    ROW_NO_ERROR(onescope_replay_step_input),
    ROW(onescope_replay_validate),
    ROW(onescope_replay_write),
    ROW(onescope_replay_read_file),
    ROW(onescope_replay_write_file),
    ROW(onescope_replay_start_world),
    ROW(onescope_replay_run),
    ROW(onescope_replay_verify),
    ROW(onescope_sim_setup_check),
    ROW(onescope_sim_setup_decode),
    ROW(onescope_op_check_input),
    ROW(onescope_sim_create),
    ROW(onescope_sim_create_from_snapshot),
    ROW(onescope_sim_snapshot_check),
    ROW(onescope_sim_step),
    ROW(onescope_sim_run_stage),
    ROW_NO_ERROR(onescope_sim_body),
    ROW(onescope_sim_field),
    ROW(onescope_soa_scene_parse),
    ROW(onescope_soa_scene_create_world),
    ROW(onescope_soa_scene_record),
    ROW(onescope_soa_world_create),
    ROW(onescope_soa_world_add_body),
    ROW(onescope_soa_world_remove_body),
    ROW(onescope_soa_world_act),
    ROW(onescope_soa_world_set_transform),
    ROW(onescope_soa_world_add_joint),
    ROW(onescope_soa_world_step),
    ROW(onescope_soa_world_view),
    ROW(onescope_soa_world_record),
};

/* One line of printable text: no newline, no control bytes. */
static bool one_printable_line(const char *s) {
    if (s[0] == '\0') return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return false;
    return true;
}

static void codes_agree(void **state) {
    (void)state;
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        onescope_error err;
        memset(&err, 0, sizeof err);
        err.code = (onescope_code)12345; /* a value no call may leave behind */
        onescope_code rc = rows[i].call(&err);
        if (rc == ONESCOPE_OK) fail_msg("%s returned OK for bad arguments", rows[i].name);
        if (rows[i].has_error) {
            if (err.code != rc)
                fail_msg("%s returned %s but its error says %d", rows[i].name,
                         onescope_error_name(rc), (int)err.code);
            char line[1024];
            onescope_error_format(&err, line, sizeof line);
            if (!one_printable_line(line))
                fail_msg("%s: its error is not one printable line: \"%s\"", rows[i].name, line);
        }
        /* Without an error struct: the same code, no crash. */
        onescope_code again = rows[i].call(NULL);
        if (again != rc)
            fail_msg("%s returned %d with an error struct, %d without", rows[i].name, (int)rc,
                     (int)again);
    }
    print_message("%zu entry points checked\n", n);
}

/* The functions that return pointers or values: NULL objects give NULL / 0 / false and
 * never crash; void ones accept NULL. */
static void values_and_pointers(void **state) {
    (void)state;
    float q[4] = {9, 9, 9, 9};
    onescope_pose_rotation(NULL, q); /* wave 1: tripped UBSan */
    assert_null(onescope_pose_cache_pose(NULL, 0, 0));
    assert_false(onescope_pose_is_present(NULL));
    assert_true(onescope_pose_cache_next_present(NULL, 0, 0) < 0);
    assert_false(onescope_pose_cache_replay_path(NULL, "x.ospc", NULL, 0));
    assert_int_equal(onescope_pose_writer_frames(NULL), 0);
    assert_int_equal(onescope_live_decoder_offset(NULL), 0);
    size_t used = 7;
    onescope_live_record rec;
    onescope_error err;
    assert_true(onescope_live_decoder_next(NULL, bytes, 4, &used, &rec, &err) < 0);
    assert_false(onescope_live_viewer_synced(NULL));
    assert_false(onescope_live_viewer_ended(NULL));
    assert_null(onescope_live_viewer_sim(NULL));
    assert_null(onescope_live_viewer_world(NULL));
    assert_int_equal(onescope_live_viewer_steps(NULL), 0);
    const uint8_t *pending = bytes;
    size_t pending_size = 3;
    onescope_live_encoder_pending(NULL, &pending, &pending_size);
    assert_int_equal(pending_size, 0);
    onescope_live_encoder_clear(NULL);
    assert_int_equal(onescope_replay_flags(NULL), 0);
    assert_int_equal(onescope_replay_step_count(NULL), 0);
    assert_false(onescope_replay_has_start_snapshot(NULL));
    size_t snap = 5;
    assert_null(onescope_replay_start_snapshot(NULL, &snap));
    assert_int_equal(onescope_replay_start_step(NULL), 0);
    assert_false(onescope_replay_has_hash_rows(NULL));
    assert_null(onescope_replay_hash_rows(NULL));
    assert_int_equal(onescope_replay_input_bytes(NULL), 0);
    uint64_t counts[6] = {1, 1, 1, 1, 1, 1};
    onescope_replay_count_ops(NULL, counts);
    assert_int_equal(onescope_sim_dimensions(NULL), 0);
    assert_int_equal(onescope_sim_host_step(NULL), 0);
    assert_int_equal(onescope_sim_gravity(NULL), 0);
    assert_int_equal(onescope_sim_body_count(NULL), 0);
    assert_int_equal(onescope_sim_snapshot_size(NULL), 0);
    assert_int_equal(onescope_sim_snapshot(NULL, NULL, 0), 0);
    assert_false(onescope_sim_has_fields(NULL));
    assert_false(onescope_file_same(NULL, NULL));
    assert_false(onescope_file_name_is_plain(NULL, 3));
    assert_int_equal(onescope_error_format(NULL, NULL, 0), 0);
    onescope_error_clear(NULL);
    assert_non_null(onescope_error_name((onescope_code)9999));
    assert_non_null(onescope_format_name((onescope_format)9999));
    assert_non_null(onescope_sim_stage_name((onescope_sim_stage)9999));
    assert_int_equal(onescope_op_size(255), 0);
    assert_int_equal(onescope_format_detect(NULL, 0), ONESCOPE_FORMAT_UNKNOWN);
    onescope_buffer_free(NULL);
    onescope_live_decoder_free(NULL);
    onescope_live_encoder_free(NULL);
    onescope_live_viewer_free(NULL);
    onescope_ots_rig_free(NULL);
    onescope_ots_clip_free(NULL);
    onescope_pose_cache_free(NULL);
    onescope_pose_writer_free(NULL);
    onescope_replay_free(NULL);
    onescope_sim_free(NULL);
    onescope_soa_scene_free(NULL);
    onescope_soa_world_free(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(codes_agree),
        cmocka_unit_test(values_and_pointers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
