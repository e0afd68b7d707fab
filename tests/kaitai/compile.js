// Compiles a .ksy to Python (debug mode: every attribute records where it
// was read) with Kaitai's own compiler; prints the meta id and
// {file name: source} as JSON.
// Usage: node compile.js FILE.ksy SEARCH_DIR (NODE_PATH names the folder
// holding kaitai-struct-compiler and js-yaml).
const fs = require("fs");
const path = require("path");
const compiler = require("kaitai-struct-compiler");
const yaml = require("js-yaml");

const [file, search] = process.argv.slice(2);
const base = path.dirname(path.resolve(file));
const importer = {
  importYaml: function (name, mode) {
    // Absolute imports from the search folder, relative ones beside the file.
    const p = mode === "abs" || name.startsWith("/")
      ? path.join(search, name + ".ksy")
      : path.join(base, name + ".ksy");
    return Promise.resolve(yaml.load(fs.readFileSync(p, "utf8")));
  },
};
const ksy = yaml.load(fs.readFileSync(file, "utf8"));
compiler
  .compile("python", ksy, importer, true)
  .then((files) => process.stdout.write(JSON.stringify({ id: ksy.meta.id, files: files })))
  .catch((e) => {
    process.stderr.write(String(e) + "\n");
    process.exit(1);
  });
