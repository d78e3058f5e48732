/*
 * proto_check - the C side of the wire through protobuf-c.
 *   proto_check check <observation.bin> <expected_image.bin>
 *       decodes the message the JVM wrote and checks every field;
 *   proto_check write <out.bin>
 *       writes a message for the Java side (ProtoRead) to decode.
 * Exit 0 on success, 1 on a mismatch, 2 on usage or I/O errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observation.pb-c.h"

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s\n", what);
    }
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    uint8_t *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            data = malloc((size_t)n + 1);
            if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
                free(data);
                data = NULL;
            }
            *len = (size_t)n;
        }
    }
    fclose(f);
    return data;
}

/* Does the encoding carry depth (field 38) packed: tag (38 << 3) | 2 = 306,
 * varint 0xb2 0x02, followed by a length of 10 floats = 40 bytes? */
static int has_packed_depth(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++)
        if (d[i] == 0xb2 && d[i + 1] == 0x02 && d[i + 2] == 40) return 1;
    return 0;
}

static int cmd_check(const char *msg_path, const char *img_path)
{
    size_t n = 0, want_n = 0;
    uint8_t *data = read_file(msg_path, &n);
    uint8_t *want = read_file(img_path, &want_n);
    if (data == NULL || want == NULL) {
        fprintf(stderr, "cannot read %s or %s\n", msg_path, img_path);
        free(data);
        free(want);
        return 2;
    }
    Cgcapture__Wire__ObservationSpaceMessage *m =
        cgcapture__wire__observation_space_message__unpack(NULL, n, data);
    check(m != NULL, "message decodes");
    if (m != NULL) {
        check(m->image.len == 16 * 12 * 3, "image is 16x12 RGB");
        check(m->image.len == want_n && memcmp(m->image.data, want, want_n) == 0,
              "image equals the Java reference");
        static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        check(m->image_2.len > 8 && memcmp(m->image_2.data, sig, 8) == 0, "image_2 is a PNG");
        int h_ok = m->ipc_handle.len == 68;
        for (size_t i = 0; h_ok && i < 68; i++) h_ok = m->ipc_handle.data[i] == (uint8_t)(i * 3 + 1);
        check(h_ok, "ipc_handle is the 68 bytes written");
        check(m->n_depth == 10, "10 depth values");
        for (size_t i = 0; i < m->n_depth && i < 10; i++)
            check(m->depth[i] == (float)i * 0.25f - 1.0f, "depth value");
        check(has_packed_depth(data, n), "depth is packed on the wire (tag 0xb2 0x02, 40 bytes)");
        cgcapture__wire__observation_space_message__free_unpacked(m, NULL);
    }
    free(data);
    free(want);
    printf("proto_check: %d failures\n", failures);
    return failures ? 1 : 0;
}

static int cmd_write(const char *path)
{
    uint8_t img[7 * 5 * 3], handle[68];
    float depth[5];
    for (size_t i = 0; i < sizeof img; i++) img[i] = (uint8_t)(i * 7 + 3);
    for (size_t i = 0; i < sizeof handle; i++) handle[i] = (uint8_t)(255 - i);
    for (int i = 0; i < 5; i++) depth[i] = 0.5f * (float)i + 0.125f;
    Cgcapture__Wire__ObservationSpaceMessage m = CGCAPTURE__WIRE__OBSERVATION_SPACE_MESSAGE__INIT;
    m.image.data = img;
    m.image.len = sizeof img;
    m.image_2.data = (uint8_t *)"abc";
    m.image_2.len = 3;
    m.ipc_handle.data = handle;
    m.ipc_handle.len = sizeof handle;
    m.depth = depth;
    m.n_depth = 5;
    size_t n = cgcapture__wire__observation_space_message__get_packed_size(&m);
    uint8_t *buf = malloc(n);
    if (buf == NULL) return 2;
    cgcapture__wire__observation_space_message__pack(&m, buf);
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fwrite(buf, 1, n, f) == n;
    if (f != NULL && fclose(f) != 0) ok = 0;
    free(buf);
    return ok ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "check") == 0) return cmd_check(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "write") == 0) return cmd_write(argv[2]);
    fprintf(stderr, "usage: proto_check check MSG IMAGE | proto_check write OUT\n");
    return 2;
}
