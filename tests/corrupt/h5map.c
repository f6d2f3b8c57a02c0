/* SPDX-License-Identifier: MIT
 *
 * h5map.c - test helper of the corruption campaign (corrupt.py): prints where
 * a libslog file's parts lie in the file, one region a line, so the campaign
 * can aim byte flips at table rows, payload chunks and HDF5 metadata:
 *   file SIZE
 *   super 0 LEN                      the superblock
 *   ohdr ADDR LEN NAME               an object header (the root's holds the attributes)
 *   chunk ADDR LEN NAME              a chunk of dataset NAME
 *   contig ADDR LEN NAME             contiguous storage of dataset NAME
 * Everything else in the file is other HDF5 metadata (chunk indexes, heaps).
 * It reads HDF5 structures only, never libslog's: a test tool, outside the layers.
 */
#include <hdf5.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const datasets[] = {"timelines", "categories", "nodes",
                                       "strings",   "payload",    "summary"};

static void print_ohdr(hid_t obj, const char *name)
{
    H5O_info_t oi;
    if (H5Oget_info2(obj, &oi, H5O_INFO_BASIC | H5O_INFO_HDR) >= 0) {
        (void)printf("ohdr %" PRIu64 " %" PRIu64 " %s\n", (uint64_t)oi.addr,
                     (uint64_t)(oi.hdr.nchunks == 1 ? oi.hdr.space.total : 16u), name);
    }
}

static void print_chunks(hid_t d, const char *name)
{
    hsize_t n = 0;
    const hid_t space = H5Dget_space(d);
    if (H5Dget_num_chunks(d, space, &n) < 0) {
        n = 0;
    }
    for (hsize_t i = 0; i < n; i++) {
        hsize_t off[1];
        unsigned mask;
        haddr_t addr;
        hsize_t size;
        if (H5Dget_chunk_info(d, space, i, off, &mask, &addr, &size) >= 0) {
            (void)printf("chunk %" PRIu64 " %" PRIu64 " %s\n", (uint64_t)addr, (uint64_t)size,
                         name);
        }
    }
    (void)H5Sclose(space);
}

static void print_dataset(hid_t f, const char *name)
{
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0) {
        return;
    }
    print_ohdr(d, name);
    const hid_t dcpl = H5Dget_create_plist(d);
    if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
        print_chunks(d, name);
    } else {
        const haddr_t addr = H5Dget_offset(d);
        if (addr != HADDR_UNDEF) {
            (void)printf("contig %" PRIu64 " %" PRIu64 " %s\n", (uint64_t)addr,
                         (uint64_t)H5Dget_storage_size(d), name);
        }
    }
    (void)H5Pclose(dcpl);
    (void)H5Dclose(d);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        (void)fprintf(stderr, "usage: h5map FILE.slog\n");
        return 2;
    }
    (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    (void)H5Pset_file_locking(fapl, 0, 1);
    const hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    (void)H5Pclose(fapl);
    if (f < 0) {
        (void)fprintf(stderr, "h5map: %s: cannot open as HDF5\n", argv[1]);
        return 1;
    }
    hsize_t size = 0;
    (void)H5Fget_filesize(f, &size);
    (void)printf("file %" PRIu64 "\n", (uint64_t)size);
    H5F_info2_t fi;
    if (H5Fget_info2(f, &fi) >= 0) {
        (void)printf("super 0 %" PRIu64 "\n", (uint64_t)fi.super.super_size);
    }
    print_ohdr(f, "/");
    for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++) {
        print_dataset(f, datasets[i]);
    }
    (void)H5Fclose(f);
    return 0;
}
