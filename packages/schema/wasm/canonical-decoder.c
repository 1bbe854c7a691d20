// The canonical-bytes tier in WebAssembly: decodes every canonical line of a piece of a trace in one
// call, into typed columns that JavaScript copies into a ColumnBatch (decoded-run.ts) or commits line
// by line with generated code (decoded-column-reader.ts).
//
// The wire facts come from the layout table at run time: JavaScript writes each kind's name, its
// fields' key literals (`,"name":`), types, presence and enum variants into `layout` and `pool`
// (canonical-decoder.ts), so this file holds no fact of the format. It accepts a subset of what the
// JavaScript canonical reader accepts and yields the same values: no white space anywhere, ASCII
// strings without escapes, plain integers and decimals of at most 15 digits, `}` followed by LF, and
// no kind with a string map (`meta`). Any other line is declined (kind -1) and the JavaScript tiers
// decide it, as they decide every line without the decoder.
//
// Per line it records where the line starts and ends, its kind code and its row in its kind's staged
// columns. It writes each field's value straight into that row, typed as the batch's columns are: a
// string as its id in this call's dictionary (int32), an enum's variant index and a boolean as a byte,
// a u64 or a float as a double, a list's elements in a flat column with per-row offsets, and absent
// optional fields as the column markers. Strings are interned per call in an open-addressing table
// keyed by a hash of their bytes; the ids count up from 0.
//
// A run of accepted lines is committed column by column: `stageRun` lists the run's strings that
// have no id in the reader's batch yet (in the order the lines use them, the order in which the
// JavaScript reader interns them), JavaScript gives them their batch ids in `dictIds`, `finishRun`
// turns the run's string ids into batch ids in place and gives each line its row in the batch, and
// JavaScript copies each field's rows with one typed-array copy of the same type.
//
// Build: packages/schema/scripts/canonical-decoder-build.ts (clang, wasm32, SIMD128).
#include <stdint.h>
#include <wasm_simd128.h>

#define INPUT_CAPACITY (1 << 20)
#define LINE_CAPACITY 32768
#define TABLE_SLOTS (1 << 14)
#define STRING_CAPACITY (TABLE_SLOTS / 2)
#define LAYOUT_CAPACITY 4096
#define POOL_CAPACITY 16384
#define MAX_KINDS 128
#define MAX_FIELDS 1024
/** Staged rows per kind and call, fields of readable kinds, list fields, and elements per list field. */
#define STAGE_ROWS 8192
#define STAGE_BYTES (2 << 20)
#define STAGE_LISTS 4
#define STAGE_FLAT 32768
/** dictIds: a string of this call not given a batch id yet, and one listed by prepareRun. */
#define UNRESOLVED (-1)
#define PENDING (-2)

enum { STRING = 0, ENUM = 1, U64 = 2, BOOLEAN = 3, STRINGS = 4, SHAPE = 5, F64 = 6 };
/** Per field in `layout`: literal offset and length in `pool`, type, optional, first variant, variant count. */
enum { FIELD_INTS = 6 };

// SIMD loads may read up to 15 bytes past the input's last line: padding keeps them in memory.
static uint8_t input[INPUT_CAPACITY + 16];
static int32_t line_starts[LINE_CAPACITY];
static int32_t line_ends[LINE_CAPACITY];
static int32_t line_kinds[LINE_CAPACITY];
static int32_t string_offsets[STRING_CAPACITY];
static int32_t string_lengths[STRING_CAPACITY];
/**
 * A slot of the intern table: empty unless `call` is the current call. Its string's length and first
 * eight bytes are kept in it, so a short string is found without touching the input again.
 */
struct slot {
  uint32_t call;
  uint32_t hash;
  int32_t id;
  int32_t length;
  uint64_t head;
  uint64_t unused;
};
static struct slot slots[TABLE_SLOTS];
/** Per string id of this call: its id in the reader's batch, or UNRESOLVED / PENDING. */
static int32_t dict_ids[STRING_CAPACITY];
/** The strings prepareRun found without a batch id, in the order the run uses them. */
static int32_t pending_ids[STRING_CAPACITY];
/** Per line of the run: its row in its kind's columns of the batch (finishRun). */
static int32_t line_rows[LINE_CAPACITY];
/** Per line of the call: its row in its kind's staged columns. */
static int32_t line_stage_rows[LINE_CAPACITY];
/** Per kind: the batch's rows of that kind before the run (JavaScript sets them before finishRun). */
static int32_t run_bases[MAX_KINDS];
/** Per kind: the run's lines of that kind, and the staged row of the first of them. */
static int32_t run_rows[MAX_KINDS];
static int32_t run_starts[MAX_KINDS];
/** Per kind: the index of its first field in the layout's numbering of fields (kinds in order). */
static int32_t first_field[MAX_KINDS];
static int32_t field_count = 0;
/**
 * The staged columns: per field of a readable kind, its rows (int32 string ids, bytes, or doubles) in
 * `stage`; per list field, its rows' element offsets (rows + 1) and its elements. Each column starts
 * STAGE_SKEW bytes past the end of the one before: columns a power of two apart put the row a line
 * writes in each of them in the same cache set.
 */
#define STAGE_SKEW 192
static double stage[STAGE_BYTES / 8];
static int32_t stage_offsets[STAGE_LISTS][STAGE_ROWS + 1];
static double stage_flat[STAGE_LISTS][STAGE_FLAT + STAGE_SKEW];
/** Per field: its column's first byte in `stage`, or (lists) its slot in stage_offsets and stage_flat; -1 when none. */
static int32_t stage_slot[MAX_FIELDS];
static int32_t list_slot[MAX_FIELDS];
/** Field `global`'s staged column (it has one). */
static inline void *column_of(int32_t global) { return (uint8_t *)stage + stage_slot[global]; }
/** The staged elements of list slot `list`. */
static inline double *elements_of(int32_t list) { return stage_flat[list] + list * (STAGE_SKEW / 8); }
/** Per kind: its rows staged in this call. */
static int32_t stage_rows[MAX_KINDS];
/** Per kind k: its string and string-list fields in layout order, string_fields[kind_strings[k] ..
 * kind_strings[k + 1]). */
static int32_t string_fields[MAX_FIELDS];
static int32_t kind_strings[MAX_KINDS + 1];
static int32_t run_first = 0;
static int32_t run_count = 0;
static int32_t recorded_lines = 0;
// layout[0]: kind count; layout[1 + k]: where kind k starts; there: name offset, name length,
// readable (0/1), field count, then FIELD_INTS per field. Variants are (offset, length) pairs.
static int32_t layout[LAYOUT_CAPACITY];
// Literals are compared 16 bytes at a time: the padding keeps the last one's loads in the pool.
static uint8_t pool[POOL_CAPACITY + 16];

static uint32_t call = 0;
static int32_t string_count = 0;
/** Set when a table is full: the line is not recorded and decoding stops there. */
static int full = 0;

__attribute__((export_name("input"))) uint8_t *input_address(void) { return input; }
__attribute__((export_name("lineStarts"))) int32_t *line_starts_address(void) { return line_starts; }
__attribute__((export_name("lineEnds"))) int32_t *line_ends_address(void) { return line_ends; }
__attribute__((export_name("lineKinds"))) int32_t *line_kinds_address(void) { return line_kinds; }
__attribute__((export_name("lineStageRows"))) int32_t *line_stage_rows_address(void) { return line_stage_rows; }
__attribute__((export_name("stringOffsets"))) int32_t *string_offsets_address(void) { return string_offsets; }
__attribute__((export_name("stringLengths"))) int32_t *string_lengths_address(void) { return string_lengths; }
__attribute__((export_name("layout"))) int32_t *layout_address(void) { return layout; }
__attribute__((export_name("pool"))) uint8_t *pool_address(void) { return pool; }
__attribute__((export_name("inputCapacity"))) int32_t input_capacity(void) { return INPUT_CAPACITY; }
__attribute__((export_name("lineCapacity"))) int32_t line_capacity(void) { return LINE_CAPACITY; }
__attribute__((export_name("stringCapacity"))) int32_t string_capacity(void) { return STRING_CAPACITY; }
__attribute__((export_name("dictIds"))) int32_t *dict_ids_address(void) { return dict_ids; }
__attribute__((export_name("pendingIds"))) int32_t *pending_ids_address(void) { return pending_ids; }
__attribute__((export_name("lineRows"))) int32_t *line_rows_address(void) { return line_rows; }
__attribute__((export_name("runRows"))) int32_t *run_rows_address(void) { return run_rows; }
__attribute__((export_name("firstField"))) int32_t *first_field_address(void) { return first_field; }
__attribute__((export_name("runBases"))) int32_t *run_bases_address(void) { return run_bases; }
__attribute__((export_name("runStarts"))) int32_t *run_starts_address(void) { return run_starts; }
/** Field `global`'s staged column, its list offsets, and its list elements: addresses, 0 when none. */
__attribute__((export_name("stageColumn"))) void *stage_column(int32_t global) {
  return global >= 0 && global < field_count && stage_slot[global] >= 0 ? column_of(global) : 0;
}
__attribute__((export_name("stageOffsets"))) int32_t *stage_offsets_address(int32_t global) {
  return global >= 0 && global < field_count && list_slot[global] >= 0 ? stage_offsets[list_slot[global]] : 0;
}
__attribute__((export_name("stageFlat"))) void *stage_flat_address(int32_t global) {
  return global >= 0 && global < field_count && list_slot[global] >= 0 ? elements_of(list_slot[global]) : 0;
}
__attribute__((export_name("stageRows"))) int32_t stage_row_capacity(void) { return STAGE_ROWS; }
__attribute__((export_name("stageFlatCapacity"))) int32_t stage_flat_capacity(void) { return STAGE_FLAT; }
__attribute__((export_name("maxKinds"))) int32_t max_kinds(void) { return MAX_KINDS; }
__attribute__((export_name("maxFields"))) int32_t max_fields(void) { return MAX_FIELDS; }
__attribute__((export_name("layoutCapacity"))) int32_t layout_capacity(void) { return LAYOUT_CAPACITY; }
__attribute__((export_name("poolCapacity"))) int32_t pool_capacity(void) { return POOL_CAPACITY; }

/**
 * True when the `length` bytes of `pool` at `offset` are at `at`, compared 16 at a time: the bytes
 * loaded past either end (the line's LF and what follows it, the pool's next entries or padding) are
 * masked off.
 */
static inline int literal_at(const uint8_t *at, int32_t offset, int32_t length) {
  const uint8_t *expected = pool + offset;
  for (; length >= 16; length -= 16, at += 16, expected += 16) {
    if (wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(at), wasm_v128_load(expected))) != 0xffff) return 0;
  }
  uint32_t same = (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(at), wasm_v128_load(expected)));
  uint32_t wanted = (1u << length) - 1;
  return (same & wanted) == wanted;
}

static inline uint64_t load64(const uint8_t *at) {
  uint64_t word;
  __builtin_memcpy(&word, at, 8);
  return word;
}

/** Whether the `length` bytes at `a` and `b` (both within the input and its padding) are equal. */
static inline int same_bytes(const uint8_t *a, const uint8_t *b, int32_t length) {
  for (; length >= 8; length -= 8, a += 8, b += 8) {
    if (load64(a) != load64(b)) return 0;
  }
  return length == 0 || ((load64(a) ^ load64(b)) & ((1ull << (length * 8)) - 1)) == 0;
}

/** The id of the string input[start, start + length) in this call's dictionary; -1 when it is full. */
static int32_t intern(const uint8_t *start, int32_t length) {
  uint64_t hash = 0x9e3779b97f4a7c15ull * (uint64_t)(length + 1);
  int32_t index = 0;
  for (; index + 8 <= length; index += 8) hash = (hash ^ load64(start + index)) * 0xff51afd7ed558ccdull;
  if (index < length) {
    // Whole-word loads past the string stay within the line and its padding; masked off.
    uint64_t tail = load64(start + index) & ((1ull << ((length - index) * 8)) - 1);
    hash = (hash ^ tail) * 0xc4ceb9fe1a85ec53ull;
  }
  uint32_t key = (uint32_t)(hash >> 32);
  uint64_t head = length >= 8 ? load64(start) : load64(start) & ((1ull << (length * 8)) - 1);
  uint32_t slot = key & (TABLE_SLOTS - 1);
  for (;;) {
    struct slot *entry = &slots[slot];
    if (entry->call != call) {
      if (string_count >= STRING_CAPACITY) {
        full = 1;
        return -1;
      }
      int32_t id = string_count++;
      dict_ids[id] = UNRESOLVED;
      string_offsets[id] = (int32_t)(start - input);
      string_lengths[id] = length;
      entry->call = call;
      entry->hash = key;
      entry->id = id;
      entry->length = length;
      entry->head = head;
      return id;
    }
    if (entry->hash == key && entry->length == length && entry->head == head &&
        (length <= 8 || same_bytes(input + string_offsets[entry->id] + 8, start + 8, length - 8))) {
      return entry->id;
    }
    slot = (slot + 1) & (TABLE_SLOTS - 1);
  }
}

/**
 * The string value at `*cursor` (ASCII from 0x20 on, no `"` or `\` inside); sets *cursor past its
 * closing quote. Returns its bytes' start and length through the pointers; 0 when not such a string.
 */
static inline int scan_string(const uint8_t **cursor, const uint8_t **start, int32_t *length) {
  const uint8_t *at = *cursor;
  if (*at != '"') return 0;
  const uint8_t *from = ++at;
  for (;;) {
    v128_t bytes = wasm_v128_load(at);
    v128_t stops = wasm_v128_or(
        wasm_v128_or(wasm_i8x16_eq(bytes, wasm_i8x16_splat('"')), wasm_i8x16_eq(bytes, wasm_i8x16_splat('\\'))),
        wasm_v128_or(wasm_u8x16_lt(bytes, wasm_i8x16_splat(0x20)), wasm_i8x16_lt(bytes, wasm_i8x16_splat(0))));
    uint32_t mask = (uint32_t)wasm_i8x16_bitmask(stops);
    if (mask != 0) {
      at += __builtin_ctz(mask);
      break;
    }
    at += 16;
  }
  if (*at != '"') return 0;
  *start = from;
  *length = (int32_t)(at - from);
  *cursor = at + 1;
  return 1;
}

/** How many of the eight bytes of `word` (in memory order) are digits before the first that is not. */
static inline uint32_t leading_digits(uint64_t word) {
  // A byte is a digit when its high nibble is 3 and adding 6 keeps it so. A carry out of a byte of
  // 0xfa or more reaches only the bytes after it, and that byte is no digit by the first test.
  uint64_t not_digits = ((word & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull) |
                        (((word + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) ^ 0x3030303030303030ull);
  return not_digits == 0 ? 8 : (uint32_t)__builtin_ctzll(not_digits) >> 3;
}

/** The value of the `digits` (1 to 8) digits at the start of `word`, eight at a time (SWAR). */
static inline uint64_t digits_value(uint64_t word, uint32_t digits) {
  // The digits moved to the top bytes: the bytes below read as leading zeros.
  uint64_t value = (word & 0x0f0f0f0f0f0f0f0full) << (8 * (8 - digits));
  value = (value * 10 + (value >> 8)) & 0x00ff00ff00ff00ffull;
  value = (value * 100 + (value >> 16)) & 0x0000ffff0000ffffull;
  return (value * 10000 + (value >> 32)) & 0xffffffffull;
}

static const uint64_t TENS[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/**
 * Plain digits, 1 to 15 of them, no leading zero (as the JavaScript reader): the value, or -1. Read
 * eight bytes at a time: a number's digits end within the line or at the zero padding after it.
 */
__attribute__((always_inline)) static inline double read_u64(const uint8_t **cursor) {
  const uint8_t *at = *cursor;
  uint64_t word = load64(at);
  uint32_t digits = leading_digits(word);
  if (digits == 0) return -1;
  uint64_t value = digits_value(word, digits);
  if (digits == 8) {
    uint64_t more = load64(at + 8);
    uint32_t extra = leading_digits(more);
    if (extra == 8) return -1; // 16 digits or more
    if (extra > 0) value = value * TENS[extra] + digits_value(more, extra);
    digits += extra;
  }
  if (digits > 15 || (digits > 1 && *at == '0')) return -1;
  *cursor = at + digits;
  return (double)value;
}

/** Powers of ten exact as doubles (10^0 .. 10^22). */
static const double EXACT_TENS[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/**
 * A float of the form -?(0|[1-9][0-9]*)(.[0-9]+)? with at most 15 digits in all, through *value;
 * 0 for any other form (exponents, longer numbers), which the JavaScript reader takes. Its digits
 * make an integer below 2^53 and its scale a power of ten exact as a double, so one division gives
 * the correctly rounded value: the double Number() gives for the same text (Clinger's fast path).
 */
static inline int read_f64(const uint8_t **cursor, double *value) {
  const uint8_t *at = *cursor;
  int negative = *at == '-';
  if (negative) at++;
  const uint8_t *from = at;
  uint64_t digits = 0;
  while ((uint32_t)(*at - '0') < 10) digits = digits * 10 + (uint64_t)(*at++ - '0');
  int32_t whole = (int32_t)(at - from);
  if (whole == 0 || (whole > 1 && *from == '0')) return 0;
  int32_t fraction = 0;
  if (*at == '.') {
    at++;
    const uint8_t *point = at;
    while ((uint32_t)(*at - '0') < 10) digits = digits * 10 + (uint64_t)(*at++ - '0');
    fraction = (int32_t)(at - point);
    if (fraction == 0) return 0;
  }
  if (whole + fraction > 15 || *at == 'e' || *at == 'E') return 0;
  double magnitude = (double)digits / EXACT_TENS[fraction];
  *value = negative ? -magnitude : magnitude;
  *cursor = at;
  return 1;
}

/**
 * Per field of the layout (by its place in `layout`): the value it had on the last line that had it,
 * in this call. Lines in a row repeat most values (span, op name, device, dtype, category), and one
 * 16-byte comparison with the last one then stands in for hashing and probing the string table, or
 * for comparing the variants in turn.
 */
static uint32_t last_call[LAYOUT_CAPACITY];
static int32_t last_offset[LAYOUT_CAPACITY];
static int32_t last_length[LAYOUT_CAPACITY];
static int32_t last_id[LAYOUT_CAPACITY];

/** Whether the `length` bytes (at most 16) at `a` and `b`, both within the input and its padding, are equal. */
static inline int same_short(const uint8_t *a, const uint8_t *b, int32_t length) {
  uint32_t same = (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(a), wasm_v128_load(b)));
  uint32_t wanted = (1u << length) - 1;
  return (same & wanted) == wanted;
}

/** The id of a string field's value: the last one's when the bytes repeat it, else interned. */
static inline int32_t field_string_id(int32_t place, const uint8_t *start, int32_t length) {
  if (last_call[place] == call && last_length[place] == length && length <= 16 &&
      same_short(input + last_offset[place], start, length)) {
    return last_id[place];
  }
  int32_t id = intern(start, length);
  if (id >= 0) {
    last_call[place] = call;
    last_offset[place] = (int32_t)(start - input);
    last_length[place] = length;
    last_id[place] = id;
  }
  return id;
}

/**
 * Reads one field's value at *cursor and stages it as field `global`'s value in row `row` of its
 * kind's staged columns; 0 when the line is not canonical here.
 */
static int read_value(const uint8_t **cursor, const int32_t *field, int32_t global, int32_t row) {
  switch (field[2]) {
    case STRING: {
      const uint8_t *start;
      int32_t length;
      if (!scan_string(cursor, &start, &length)) return 0;
      int32_t id = field_string_id((int32_t)(field - layout), start, length);
      ((int32_t *)column_of(global))[row] = id;
      return id >= 0;
    }
    case ENUM: {
      const uint8_t *start;
      int32_t length;
      if (!scan_string(cursor, &start, &length)) return 0;
      // The variant of the field's last value first (variants are distinct literals).
      int32_t place = (int32_t)(field - layout);
      int32_t guess = last_call[place] == call ? last_id[place] : 0;
      const int32_t *variant = layout + field[4];
      if (field[5] > 0 && variant[guess * 2 + 1] == length && literal_at(start, variant[guess * 2], length)) {
        ((uint8_t *)column_of(global))[row] = (uint8_t)guess;
        return 1;
      }
      for (int32_t index = 0; index < field[5]; index++, variant += 2) {
        if (variant[1] == length && literal_at(start, variant[0], length)) {
          last_call[place] = call;
          last_id[place] = index;
          ((uint8_t *)column_of(global))[row] = (uint8_t)index;
          return 1;
        }
      }
      return 0;
    }
    case U64: {
      double value = read_u64(cursor);
      ((double *)column_of(global))[row] = value;
      return value >= 0;
    }
    case F64: {
      double value;
      if (!read_f64(cursor, &value)) return 0;
      ((double *)column_of(global))[row] = value;
      return 1;
    }
    case BOOLEAN: {
      const uint8_t *at = *cursor;
      if (at[0] == 't' && at[1] == 'r' && at[2] == 'u' && at[3] == 'e') {
        *cursor = at + 4;
        ((uint8_t *)column_of(global))[row] = 1;
        return 1;
      }
      if (at[0] == 'f' && at[1] == 'a' && at[2] == 'l' && at[3] == 's' && at[4] == 'e') {
        *cursor = at + 5;
        ((uint8_t *)column_of(global))[row] = 0;
        return 1;
      }
      return 0;
    }
    case STRINGS:
    case SHAPE: {
      const uint8_t *at = *cursor;
      if (*at != '[') return 0;
      at++;
      int32_t list = list_slot[global];
      int32_t element_at = stage_offsets[list][row];
      if (*at != ']') {
        for (;;) {
          if (element_at >= STAGE_FLAT) {
            full = 1;
            return 0;
          }
          if (field[2] == STRINGS) {
            const uint8_t *start;
            int32_t length;
            if (!scan_string(&at, &start, &length)) return 0;
            int32_t id = intern(start, length);
            if (id < 0) return 0;
            ((int32_t *)elements_of(list))[element_at++] = id;
          } else {
            double value = read_u64(&at);
            if (value < 0) return 0;
            elements_of(list)[element_at++] = value;
          }
          if (*at == ',') {
            at++;
            continue;
          }
          if (*at != ']') return 0;
          break;
        }
      }
      stage_offsets[list][row + 1] = element_at;
      *cursor = at + 1;
      return 1;
    }
    default:
      return 0;
  }
}

/** Stages the marker of absent field `global` (of `type`) in `row`. */
static void absent_value(int32_t type, int32_t global, int32_t row) {
  switch (type) {
    case STRING:
      ((int32_t *)column_of(global))[row] = -1;
      break;
    case ENUM:
      ((uint8_t *)column_of(global))[row] = 255;
      break;
    case BOOLEAN:
      ((uint8_t *)column_of(global))[row] = 0;
      break;
    case STRINGS:
    case SHAPE: {
      int32_t list = list_slot[global];
      stage_offsets[list][row + 1] = stage_offsets[list][row];
      break;
    }
    default:
      ((double *)column_of(global))[row] = type == F64 ? __builtin_nan("") : -1;
  }
}

// The kinds by the first letter of their name, so a line is compared with one or two names only.
#define KINDS_PER_LETTER 4
static int8_t kinds_by_letter[256][KINDS_PER_LETTER];

/**
 * Fills kinds_by_letter and first_field from the layout table: called once, after JavaScript wrote
 * the table. Returns 0 when the table has more kinds or fields than the run tables hold.
 */
__attribute__((export_name("indexLayout"))) int32_t index_layout(void) {
  for (int32_t letter = 0; letter < 256; letter++) {
    for (int32_t slot = 0; slot < KINDS_PER_LETTER; slot++) kinds_by_letter[letter][slot] = -1;
  }
  int32_t kinds = layout[0];
  for (int32_t kind = 0; kind < kinds && kind < 128; kind++) {
    const int32_t *entry = layout + layout[1 + kind];
    if (entry[1] == 0) continue;
    int8_t *slots = kinds_by_letter[pool[entry[0]]];
    for (int32_t slot = 0; slot < KINDS_PER_LETTER; slot++) {
      if (slots[slot] < 0) {
        slots[slot] = (int8_t)kind;
        break;
      }
    }
  }
  if (kinds > MAX_KINDS) return 0;
  field_count = 0;
  for (int32_t kind = 0; kind < kinds; kind++) {
    first_field[kind] = field_count;
    field_count += layout[layout[1 + kind] + 3];
    if (field_count > MAX_FIELDS) return 0;
  }
  // Staged columns for the fields of the kinds the decoder reads; a table with more than they hold
  // gets no decoder (the JavaScript tiers read it).
  int32_t stage_end = 0;
  int32_t lists = 0;
  int32_t strings = 0;
  for (int32_t kind = 0; kind < kinds; kind++) {
    const int32_t *entry = layout + layout[1 + kind];
    kind_strings[kind] = strings;
    const int32_t *field = entry + 4;
    for (int32_t index = 0; index < entry[3]; index++, field += FIELD_INTS) {
      int32_t global = first_field[kind] + index;
      stage_slot[global] = -1;
      list_slot[global] = -1;
      if (!entry[2]) continue;
      if (field[2] == STRINGS || field[2] == SHAPE) {
        if (lists == STAGE_LISTS) return 0;
        list_slot[global] = lists++;
      } else {
        int32_t bytes = (field[2] == STRING ? 4 : field[2] == ENUM || field[2] == BOOLEAN ? 1 : 8) * STAGE_ROWS;
        if (stage_end + bytes > STAGE_BYTES) return 0;
        stage_slot[global] = stage_end;
        stage_end += bytes + STAGE_SKEW;
      }
      if (field[2] == STRING || field[2] == STRINGS) string_fields[strings++] = global;
    }
  }
  kind_strings[kinds] = strings;
  return 1;
}

/**
 * Decodes the line at `at`; its kind code, with the offset of its LF in `*end`, or -1. An accepted
 * line ends with `}` and LF: no LF can come before that (a string or a value would stop at it), so
 * the line is decoded without finding its end first.
 */
static int32_t decode_line(const uint8_t *at, int32_t *end) {
  static const uint8_t head[] = "{\"kind\":\"";
  for (int32_t index = 0; index < 9; index++) {
    if (at[index] != head[index]) return -1;
  }
  at += 9;
  const int8_t *candidates = kinds_by_letter[at[0]];
  for (int32_t slot = 0; slot < KINDS_PER_LETTER && candidates[slot] >= 0; slot++) {
    int32_t kind = candidates[slot];
    const int32_t *entry = layout + layout[1 + kind];
    int32_t name_length = entry[1];
    if (!literal_at(at, entry[0], name_length) || at[name_length] != '"') continue;
    if (!entry[2]) return -1;
    at += name_length + 1;
    int32_t row = stage_rows[kind];
    if (row >= STAGE_ROWS) {
      full = 1;
      return -1;
    }
    int32_t fields = entry[3];
    int32_t global = first_field[kind];
    const int32_t *field = entry + 4;
    for (int32_t index = 0; index < fields; index++, field += FIELD_INTS, global++) {
      if (literal_at(at, field[0], field[1])) {
        at += field[1];
        if (!read_value(&at, field, global, row)) return -1;
      } else if (field[3]) {
        absent_value(field[2], global, row);
      } else {
        return -1;
      }
    }
    if (at[0] != '}' || at[1] != '\n') return -1;
    *end = (int32_t)(at + 1 - input);
    return kind;
  }
  return -1;
}

/** Index of the first LF at or after `at` before `stop`, or -1. */
static int32_t line_feed(const uint8_t *at, const uint8_t *stop) {
  while (at + 16 <= stop) {
    uint32_t mask = (uint32_t)wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(at), wasm_i8x16_splat('\n')));
    if (mask != 0) return (int32_t)(at - input) + __builtin_ctz(mask);
    at += 16;
  }
  while (at < stop && *at != '\n') at++;
  return at < stop ? (int32_t)(at - input) : -1;
}

/**
 * Decodes the LF-terminated lines of input[0, length): returns how many lines it recorded (a last
 * line without its LF is not one). It stops early when a table fills; the caller decodes again from
 * the first line not recorded.
 */
__attribute__((export_name("decode"))) int32_t decode(int32_t length) {
  if (length < 0 || length > INPUT_CAPACITY) return 0;
  call++;
  recorded_lines = 0;
  string_count = 0;
  full = 0;
  for (int32_t kind = 0; kind < layout[0]; kind++) stage_rows[kind] = 0;
  for (int32_t list = 0; list < STAGE_LISTS; list++) stage_offsets[list][0] = 0;
  // A line's last value may be scanned up to 16 bytes on: the padding must not look like a value.
  for (int32_t index = 0; index < 16; index++) input[length + index] = 0;
  const uint8_t *stop = input + length;
  int32_t lines = 0;
  int32_t start = 0;
  while (lines < LINE_CAPACITY && start < length) {
    int32_t end = -1;
    int32_t kind = decode_line(input + start, &end);
    if (full) break;
    // A declined line's end is looked for; an accepted one's LF is within the input (the padding
    // holds no LF).
    if (kind < 0) end = line_feed(input + start, stop);
    if (end < 0) break;
    if (kind >= 0) line_stage_rows[lines] = stage_rows[kind]++;
    line_starts[lines] = start;
    line_ends[lines] = end;
    line_kinds[lines] = kind;
    lines++;
    start = end + 1;
  }
  recorded_lines = lines;
  return lines;
}

/** Forgets the batch ids of this call's strings (the reader's batch has a new dictionary). */
__attribute__((export_name("forgetIds"))) void forget_ids(void) {
  for (int32_t id = 0; id < string_count; id++) dict_ids[id] = UNRESOLVED;
}

/**
 * The staged string ids of string or string-list field `global` in the `rows` rows from `row` on:
 * returns the column they are in, and sets [*from, *to) to their places there.
 */
static inline int32_t *staged_ids(int32_t global, int32_t row, int32_t rows, int32_t *from, int32_t *to) {
  int32_t list = list_slot[global];
  if (list < 0) {
    *from = row;
    *to = row + rows;
    return (int32_t *)column_of(global);
  }
  *from = stage_offsets[list][row];
  *to = stage_offsets[list][row + rows];
  return (int32_t *)elements_of(list);
}

/**
 * Prepares the commit of the run of `count` accepted lines from line `first` of the last call: counts
 * its rows per kind (and the staged row of each kind's first), and lists in pending_ids the strings it
 * uses that have no batch id yet, each once, in the order the lines use them. Returns how many it
 * listed (JavaScript then sets their dictIds), or -1 when the run is not one of accepted lines.
 */
__attribute__((export_name("stageRun"))) int32_t stage_run(int32_t first, int32_t count) {
  if (first < 0 || count <= 0 || first + count > recorded_lines) return -1;
  int32_t kinds = layout[0];
  for (int32_t kind = 0; kind < kinds; kind++) run_rows[kind] = 0;
  int32_t pending = 0;
  for (int32_t line = first; line < first + count; line++) {
    int32_t kind = line_kinds[line];
    if (kind < 0) return -1;
    int32_t row = line_stage_rows[line];
    if (run_rows[kind]++ == 0) run_starts[kind] = row;
    for (int32_t at = kind_strings[kind]; at < kind_strings[kind + 1]; at++) {
      int32_t from, to;
      const int32_t *ids = staged_ids(string_fields[at], row, 1, &from, &to);
      for (int32_t element = from; element < to; element++) {
        int32_t id = ids[element];
        if (id >= 0 && dict_ids[id] == UNRESOLVED) {
          dict_ids[id] = PENDING;
          pending_ids[pending++] = id;
        }
      }
    }
  }
  run_first = first;
  run_count = count;
  return pending;
}

/**
 * Finishes the run stageRun prepared: its staged string ids become batch ids in place (each kind's
 * rows of the run are staged side by side), and each line gets its row in its kind's columns of the
 * batch, `run_bases[kind]` (set by JavaScript) on.
 */
__attribute__((export_name("finishRun"))) void finish_run(void) {
  for (int32_t line = run_first; line < run_first + run_count; line++) {
    int32_t kind = line_kinds[line];
    line_rows[line] = run_bases[kind] + line_stage_rows[line] - run_starts[kind];
  }
  int32_t kinds = layout[0];
  for (int32_t kind = 0; kind < kinds; kind++) {
    int32_t rows = run_rows[kind];
    if (rows == 0) continue;
    int32_t start = run_starts[kind];
    for (int32_t at = kind_strings[kind]; at < kind_strings[kind + 1]; at++) {
      int32_t from, to;
      int32_t *ids = staged_ids(string_fields[at], start, rows, &from, &to);
      for (int32_t element = from; element < to; element++) {
        int32_t id = ids[element];
        if (id >= 0) ids[element] = dict_ids[id];
      }
    }
  }
}
