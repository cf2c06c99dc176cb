// ESLint for our own browser code (static/js) and its node tests (tests/js): ES modules, no
// build step. Formatting is prettier's job; these rules catch mistakes (an unused or
// undefined name, a loose comparison, a `let` never reassigned). Run: npx eslint .
import js from "@eslint/js";
import globals from "globals";

const mistakes = {
  // `const { tokens, ...rest } = x` drops a key on purpose.
  "no-unused-vars": [
    "error",
    { args: "after-used", caughtErrors: "none", ignoreRestSiblings: true },
  ],
  "no-undef": "error",
  eqeqeq: ["error", "always"],
  "prefer-const": "error",
  "no-var": "error",
  "no-shadow": "error",
  "no-implicit-globals": "error",
  "no-param-reassign": ["error", { props: false }],
  "no-unused-expressions": "error",
  // A function may read a module variable declared below it: it runs after the module loaded.
  "no-use-before-define": ["error", { functions: false, variables: false }],
  "no-throw-literal": "error",
  "no-return-assign": "error",
  "no-console": ["error", { allow: ["warn", "error"] }],
  "object-shorthand": "error",
  "prefer-template": "error",
};

// A URL of this site written as a path ("/api/v1/…", `/embed/${n}`) must go through
// api.js `siteUrl`, or it misses the root path behind a proxy at /attention/.
// A lone "/" (a separator, as in split("/")) is not a path.
const SITE_PATH = "/^\\/[\\w$?#.-]/";
const sitePaths = {
  "no-restricted-syntax": [
    "error",
    {
      selector: `Literal[value=${SITE_PATH}]:not(CallExpression[callee.name='siteUrl'] > Literal)`,
      message: 'Write a path of this site as siteUrl("/…") (static/js/api.js).',
    },
    {
      selector: `TemplateLiteral:not(CallExpression[callee.name='siteUrl'] > TemplateLiteral) > TemplateElement:first-child[value.raw=${SITE_PATH}]`,
      message: "Write a path of this site as siteUrl(`/…`) (static/js/api.js).",
    },
  ],
};

export default [
  {
    // Everything else is not ours or not browser code: third-party files, the venv.
    // attention_lab/static: the widget bundle, built by esbuild from static/js (linted there).
    ignores: [
      "static/vendor/**",
      "tests/browser/vendor/**",
      "node_modules/**",
      ".venv/**",
      "attention_lab/static/**",
    ],
  },
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2025, // import attributes (notation_core.js imports its JSON table)
      sourceType: "module",
      globals: { ...globals.browser },
    },
    rules: { ...mistakes, ...sitePaths },
  },
  {
    // The classic scripts: Swagger UI's start-up, loaded by a plain <script src>, and the
    // SCORM adapter, inlined into an exported lesson (app/export/scorm.py).
    files: ["static/js/swagger-init.js", "static/js/lessons/scorm_adapter.js"],
    languageOptions: { sourceType: "script" },
  },
  {
    files: ["tests/js/**/*.mjs", "eslint.config.js"],
    languageOptions: {
      ecmaVersion: 2025,
      sourceType: "module",
      globals: { ...globals.node },
    },
    rules: mistakes,
  },
];
