/* OTS v4 rigs and clips as objects: defaults, building, setters, freeing. Reading is in
 * ots_read.c, writing in ots_write.c, the rules both share in ots_rules.c, conversion to and
 * from pose caches in ots_convert.c. Rules: docs/ots.md. */
#include <string.h>

#include "ots_internal.h"

onescope_ots_header onescope_ots_header_default(void) {
    onescope_ots_header h;
    h.source = ONESCOPE_OTS_SOURCE_HARMONY;
    h.fps = 24.0;
    h.coordinate_system.up = ONESCOPE_OTS_UP_Y;
    h.coordinate_system.hand = ONESCOPE_OTS_HAND_RIGHT;
    h.coordinate_system.unit = ONESCOPE_OTS_UNIT_METERS;
    h.coordinate_system.rot_order = ONESCOPE_OTS_ROT_XYZ;
    h.coordinate_system.rot_repr_anim = ONESCOPE_OTS_REPR_EULER_DEG;
    h.coordinate_system.rot_repr_rest = ONESCOPE_OTS_REPR_QUAT_WXYZ;
    return h;
}

/* ---- strings ---- */

char *onescope_os_ots_strdup_n(const onescope_allocator *a, const char *s, size_t n) {
    char *p = onescope_os_alloc(a, n + 1);
    if (p == NULL) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Replaces *slot with a copy of text (NULL sets NULL); on failure *slot is kept. */
static onescope_code replace_text(const onescope_allocator *a, char **slot, const char *text,
                                  const char *fn, onescope_error *error) {
    char *p = NULL;
    if (text != NULL && (p = onescope_os_ots_strdup_n(a, text, strlen(text))) == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, fn, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    onescope_os_free(a, *slot);
    *slot = p;
    return ONESCOPE_OK;
}

static onescope_code bad_index(const char *fn, const char *what, size_t index, size_t count,
                               onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_RANGE, fn, OS_NO_OFFSET, what, NULL,
                            "%zu, but there are %zu", index, count);
}

static onescope_code bad_field(const char *fn, const char *element, onescope_ots_text field,
                               onescope_error *error) {
    return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "field", NULL,
                            "%d, which is not a text field of a %s", (int)field, element);
}

static char **camera_slot(onescope_ots_camera *k, onescope_ots_text field) {
    switch (field) {
        case ONESCOPE_OTS_TEXT_NAME: return &k->name;
        case ONESCOPE_OTS_TEXT_PEG: return &k->peg;
        case ONESCOPE_OTS_TEXT_PATH: return &k->path;
        case ONESCOPE_OTS_TEXT_RIG: return &k->rig;
        default: return NULL;
    }
}

static onescope_code set_camera_text(const onescope_allocator *a, onescope_ots_camera *cams,
                                     size_t count, size_t index, onescope_ots_text field,
                                     const char *text, const char *fn, onescope_error *error) {
    if (index >= count) return bad_index(fn, "camera index", index, count, error);
    char **slot = camera_slot(&cams[index], field);
    if (slot == NULL) return bad_field(fn, "camera", field, error);
    return replace_text(a, slot, text, fn, error);
}

onescope_code onescope_ots_rig_set_name(onescope_ots_rig *rig, const char *text,
                                        onescope_error *error) {
    const char *fn = "onescope_ots_rig_set_name";
    if (rig == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "rig", "non-NULL",
                                NULL);
    return replace_text(rig->allocator, &rig->name, text, fn, error);
}

onescope_code onescope_ots_rig_set_bone_text(onescope_ots_rig *rig, size_t bone,
                                             onescope_ots_text field, const char *text,
                                             onescope_error *error) {
    const char *fn = "onescope_ots_rig_set_bone_text";
    if (rig == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "rig", "non-NULL",
                                NULL);
    if (bone >= rig->bone_count) return bad_index(fn, "bone index", bone, rig->bone_count, error);
    onescope_ots_bone *b = &rig->bones[bone];
    char **slot = field == ONESCOPE_OTS_TEXT_NAME     ? &b->name
                  : field == ONESCOPE_OTS_TEXT_PARENT ? &b->parent
                  : field == ONESCOPE_OTS_TEXT_PATH   ? &b->path
                  : field == ONESCOPE_OTS_TEXT_RIG    ? &b->rig
                                                      : NULL;
    if (slot == NULL) return bad_field(fn, "bone", field, error);
    return replace_text(rig->allocator, slot, text, fn, error);
}

onescope_code onescope_ots_rig_set_camera_text(onescope_ots_rig *rig, size_t camera,
                                               onescope_ots_text field, const char *text,
                                               onescope_error *error) {
    const char *fn = "onescope_ots_rig_set_camera_text";
    if (rig == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "rig", "non-NULL",
                                NULL);
    return set_camera_text(rig->allocator, rig->cameras, rig->camera_count, camera, field, text, fn,
                           error);
}

onescope_code onescope_ots_clip_set_peg_text(onescope_ots_clip *clip, size_t peg,
                                             onescope_ots_text field, const char *text,
                                             onescope_error *error) {
    const char *fn = "onescope_ots_clip_set_peg_text";
    if (clip == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "clip", "non-NULL",
                                NULL);
    if (peg >= clip->peg_count) return bad_index(fn, "peg index", peg, clip->peg_count, error);
    onescope_ots_peg *p = &clip->pegs[peg];
    char **slot = NULL;
    switch (field) {
        case ONESCOPE_OTS_TEXT_NAME: slot = &p->name; break;
        case ONESCOPE_OTS_TEXT_PARENT: slot = &p->parent; break;
        case ONESCOPE_OTS_TEXT_PATH: slot = &p->path; break;
        case ONESCOPE_OTS_TEXT_RIG: slot = &p->rig; break;
        case ONESCOPE_OTS_TEXT_SOURCE_POSITION: slot = &p->source_modes.position; break;
        case ONESCOPE_OTS_TEXT_SOURCE_ROTATION: slot = &p->source_modes.rotation; break;
        case ONESCOPE_OTS_TEXT_SOURCE_SCALE: slot = &p->source_modes.scale; break;
        default: return bad_field(fn, "peg", field, error);
    }
    return replace_text(clip->allocator, slot, text, fn, error);
}

onescope_code onescope_ots_clip_set_camera_text(onescope_ots_clip *clip, size_t camera,
                                                onescope_ots_text field, const char *text,
                                                onescope_error *error) {
    const char *fn = "onescope_ots_clip_set_camera_text";
    if (clip == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, fn, OS_NO_OFFSET, "clip", "non-NULL",
                                NULL);
    return set_camera_text(clip->allocator, clip->cameras, clip->camera_count, camera, field, text,
                           fn, error);
}

/* ---- freeing and building ---- */

static void free_cameras(const onescope_allocator *a, onescope_ots_camera *cams, size_t n) {
    if (cams == NULL) return;
    for (size_t i = 0; i < n; i++) {
        onescope_os_free(a, cams[i].name);
        onescope_os_free(a, cams[i].peg);
        onescope_os_free(a, cams[i].path);
        onescope_os_free(a, cams[i].rig);
    }
    onescope_os_free(a, cams);
}

void onescope_ots_rig_free(onescope_ots_rig *rig) {
    if (rig == NULL) return;
    const onescope_allocator *a = rig->allocator;
    if (rig->bones != NULL)
        for (size_t i = 0; i < rig->bone_count; i++) {
            onescope_ots_bone *b = &rig->bones[i];
            onescope_os_free(a, b->name);
            onescope_os_free(a, b->parent);
            onescope_os_free(a, b->path);
            onescope_os_free(a, b->rig);
        }
    onescope_os_free(a, rig->bones);
    free_cameras(a, rig->cameras, rig->camera_count);
    onescope_os_free(a, rig->name);
    onescope_os_free(a, rig);
}

void onescope_ots_clip_free(onescope_ots_clip *clip) {
    if (clip == NULL) return;
    const onescope_allocator *a = clip->allocator;
    if (clip->pegs != NULL)
        for (size_t i = 0; i < clip->peg_count; i++) {
            onescope_ots_peg *p = &clip->pegs[i];
            onescope_os_free(a, p->name);
            onescope_os_free(a, p->path);
            onescope_os_free(a, p->parent);
            onescope_os_free(a, p->rig);
            onescope_os_free(a, p->source_modes.position);
            onescope_os_free(a, p->source_modes.rotation);
            onescope_os_free(a, p->source_modes.scale);
            onescope_os_free(a, p->keyframes);
        }
    onescope_os_free(a, clip->pegs);
    free_cameras(a, clip->cameras, clip->camera_count);
    onescope_os_free(a, clip);
}

static void camera_defaults(onescope_ots_camera *cams, size_t n) {
    for (size_t i = 0; i < n; i++) {
        cams[i].fov = 40.0;
        cams[i].near_plane = 0.1;
        cams[i].far_plane = 1000.0;
    }
}

onescope_code onescope_ots_rig_create(size_t bone_count, size_t camera_count,
                                      const onescope_allocator *a, onescope_ots_rig **out,
                                      onescope_error *error) {
    const char *name = "onescope_ots_rig_create";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    onescope_ots_rig *r = onescope_os_calloc(a, 1, sizeof *r);
    if (r == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    r->allocator = a;
    r->header = onescope_ots_header_default();
    r->scale_factor = 1.0;
    r->bones = onescope_os_calloc(a, bone_count, sizeof *r->bones);
    r->cameras = onescope_os_calloc(a, camera_count, sizeof *r->cameras);
    if (r->bones == NULL || r->cameras == NULL) {
        onescope_ots_rig_free(r);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    }
    r->bone_count = bone_count;
    r->camera_count = camera_count;
    for (size_t i = 0; i < bone_count; i++) r->bones[i].rotation[0] = 1.0;
    camera_defaults(r->cameras, camera_count);
    *out = r;
    return ONESCOPE_OK;
}

onescope_code onescope_ots_clip_create(size_t peg_count, size_t camera_count,
                                       const onescope_allocator *a, onescope_ots_clip **out,
                                       onescope_error *error) {
    const char *name = "onescope_ots_clip_create";
    if (out == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "out", "non-NULL",
                                NULL);
    *out = NULL;
    onescope_ots_clip *c = onescope_os_calloc(a, 1, sizeof *c);
    if (c == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    c->allocator = a;
    c->header = onescope_ots_header_default();
    c->pegs = onescope_os_calloc(a, peg_count, sizeof *c->pegs);
    c->cameras = onescope_os_calloc(a, camera_count, sizeof *c->cameras);
    if (c->pegs == NULL || c->cameras == NULL) {
        onescope_ots_clip_free(c);
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    }
    c->peg_count = peg_count;
    c->camera_count = camera_count;
    for (size_t i = 0; i < peg_count; i++) c->pegs[i].rest_rotation[0] = 1.0;
    camera_defaults(c->cameras, camera_count);
    *out = c;
    return ONESCOPE_OK;
}

static void keyframe_defaults(onescope_ots_keyframe *k, int32_t frame) {
    memset(k, 0, sizeof *k);
    k->frame = frame;
    k->has_rot_quat = true;
    k->rot_quat[0] = 1.0;
    k->scl[0] = k->scl[1] = k->scl[2] = 1.0;
    k->interp = ONESCOPE_OTS_LINEAR;
}

onescope_code onescope_ots_clip_set_keyframe_count(onescope_ots_clip *clip, size_t peg,
                                                   size_t count, onescope_error *error) {
    const char *name = "onescope_ots_clip_set_keyframe_count";
    if (clip == NULL)
        return onescope_os_fail(error, ONESCOPE_E_ARGUMENT, name, OS_NO_OFFSET, "clip", "non-NULL",
                                NULL);
    if (peg >= clip->peg_count) return bad_index(name, "peg index", peg, clip->peg_count, error);
    if (count > (size_t)INT32_MAX)
        return onescope_os_fail(error, ONESCOPE_E_RANGE, name, OS_NO_OFFSET, "count",
                                "at most 2147483647", "%zu", count);
    onescope_ots_keyframe *k = onescope_os_calloc(clip->allocator, count, sizeof *k);
    if (k == NULL)
        return onescope_os_fail(error, ONESCOPE_E_NOMEM, name, OS_NO_OFFSET, NULL, NULL,
                                "could not allocate memory");
    for (size_t i = 0; i < count; i++) keyframe_defaults(&k[i], (int32_t)i);
    onescope_ots_peg *p = &clip->pegs[peg];
    onescope_os_free(clip->allocator, p->keyframes);
    p->keyframes = k;
    p->keyframe_count = count;
    return ONESCOPE_OK;
}
