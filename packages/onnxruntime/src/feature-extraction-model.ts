import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildOnnxModel, linearNodes, seededWeights } from "./build-onnx-model.js";

const INT64 = 7;
const SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];
const WORDS = [
  "the",
  "a",
  "model",
  "runs",
  "on",
  "onnx",
  "runtime",
  "in",
  "node",
  "trace",
  "one",
  "step",
  "profile",
  "fast",
  "small",
  "text",
  "hello",
  "world",
  "feature",
  "extraction",
];

/**
 * A small BERT-shaped text encoder: token embeddings (Gather) masked by the attention mask, one
 * dense layer with a tanh and a residual, giving `last_hidden_state[batch, sequence, hidden]`.
 * Node names carry scopes (`embeddings/…`, `encoder/layer.0/…`) as exporters write them.
 */
export function textEncoderModel(hidden = 32, seed = 11): Uint8Array {
  const vocabulary = SPECIAL_TOKENS.length + WORDS.length;
  return buildOnnxModel({
    name: "text_encoder",
    inputs: [
      { name: "input_ids", dims: ["batch", "sequence"], elemType: INT64 },
      { name: "attention_mask", dims: ["batch", "sequence"], elemType: INT64 },
    ],
    outputs: [{ name: "last_hidden_state", dims: ["batch", "sequence", hidden] }],
    initializers: [
      {
        name: "embeddings.word_embeddings.weight",
        dims: [vocabulary, hidden],
        values: seededWeights(vocabulary * hidden, seed),
      },
      {
        name: "encoder.layer.0.dense.weight",
        dims: [hidden, hidden],
        values: seededWeights(hidden * hidden, seed + 1),
      },
      { name: "encoder.layer.0.dense.bias", dims: [hidden], values: seededWeights(hidden, seed + 2, 0.1) },
      { name: "mask_axes", dims: [1], values: [2], elemType: "int64" },
    ],
    nodes: [
      {
        name: "/embeddings/word_embeddings/Gather",
        opType: "Gather",
        inputs: ["embeddings.word_embeddings.weight", "input_ids"],
        outputs: ["embedded"],
      },
      {
        name: "/embeddings/mask/Cast",
        opType: "Cast",
        inputs: ["attention_mask"],
        outputs: ["mask_float"],
        ints: { to: 1 },
      },
      {
        name: "/embeddings/mask/Unsqueeze",
        opType: "Unsqueeze",
        inputs: ["mask_float", "mask_axes"],
        outputs: ["mask_3d"],
      },
      { name: "/embeddings/mask/Mul", opType: "Mul", inputs: ["embedded", "mask_3d"], outputs: ["masked"] },
      ...linearNodes(
        "/encoder/layer.0/dense",
        { input: "masked", weight: "encoder.layer.0.dense.weight", bias: "encoder.layer.0.dense.bias" },
        ["dense_mm", "dense_out"],
      ),
      { name: "/encoder/layer.0/act/Tanh", opType: "Tanh", inputs: ["dense_out"], outputs: ["activated"] },
      {
        name: "/encoder/layer.0/residual/Add",
        opType: "Add",
        inputs: ["activated", "masked"],
        outputs: ["last_hidden_state"],
      },
    ],
  });
}

/**
 * Writes a complete transformers.js model directory for `feature-extraction`: `config.json`,
 * a WordPiece `tokenizer.json` with its config, and `onnx/model.onnx` (the text encoder). Load it
 * with `env.allowRemoteModels = false`, `env.localModelPath = parent`, and the directory's name.
 */
export async function writeFeatureExtractionModel(directory: string): Promise<void> {
  const vocab: Record<string, number> = {};
  for (const [index, token] of [...SPECIAL_TOKENS, ...WORDS].entries()) vocab[token] = index;
  const special = (content: string) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab,
    },
  };
  const tokenizerConfig = {
    tokenizer_class: "BertTokenizer",
    do_lower_case: true,
    model_max_length: 128,
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    cls_token: "[CLS]",
    sep_token: "[SEP]",
  };
  const config = {
    model_type: "bert",
    architectures: ["BertModel"],
    hidden_size: 32,
    vocab_size: Object.keys(vocab).length,
  };
  await mkdir(join(directory, "onnx"), { recursive: true });
  await writeFile(join(directory, "config.json"), JSON.stringify(config, null, 2));
  await writeFile(join(directory, "tokenizer.json"), JSON.stringify(tokenizer, null, 2));
  await writeFile(join(directory, "tokenizer_config.json"), JSON.stringify(tokenizerConfig, null, 2));
  await writeFile(join(directory, "onnx", "model.onnx"), textEncoderModel());
}
