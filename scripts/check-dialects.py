#!/usr/bin/env python3
"""Checks `toolforge tools list --format X` with each provider's own Python library.

For every config of tests/corpus, tests/fixtures (with its declared tools) and examples that validates, the definitions
of every dialect are read by the library the provider publishes:

- mcp: `mcp.types.Tool` and `mcp.types.ListToolsResult`;
- openai, openai-responses: the SDK's tool param types (`ChatCompletionToolParam`,
  `ChatCompletionFunctionToolParam`, `FunctionToolParam`, validated with pydantic, unknown keys refused) and its pydantic models
  (`shared.FunctionDefinition`, `responses.FunctionTool`); the strict parameters are also read
  by google-genai's `types.Schema`, as schema rewriters do;
- anthropic: `anthropic.types.ToolParam`;
- gemini: google-genai `types.FunctionDeclaration` and `types.Tool`, plus the rules the Gemini
  API applies and the SDK does not (an OBJECT has properties, `anyOf` stands alone, enums are
  strings).

The deferred exports (`tools list --defer`) are read the same way, whole and tool by tool:

- anthropic: the list as the Messages API's `tools` (`ToolUnionParam`), its search tool as
  `ToolSearchToolBm25_20251119Param`, the others as `ToolParam`;
- openai-responses: the list as the Responses API's `tools` (`responses.ToolParam` and the
  `responses.Tool` models), its search tool as `ToolSearchToolParam` / `ToolSearchTool`, the
  others as `FunctionToolParam` / `FunctionTool`;

and both must have the search tool once, first and not deferred, the core tools not deferred,
every other tool `defer_loading: true`, and exactly the tools of the plain export.

Every description must be at most 1,024 characters. Prints what was checked; exits 1 on any
rejection. Usage: check-dialects.py [--toolforge PATH] (default: target/debug/toolforge).
"""

import argparse
import glob
import importlib.metadata
import json
import os
import subprocess
import sys
from collections import Counter

import anthropic.types
import mcp.types
import openai.types.chat
import openai.types.responses
import openai.types.shared
import openai.types.shared_params
import pydantic
from google.genai import types as genai

MAX_DESCRIPTION = 1024
FORMATS = ["mcp", "openai", "openai-responses", "anthropic", "gemini"]
DEFERRED_FORMATS = ["anthropic", "openai-responses"]
# The tools `tools list --defer` keeps loaded when no `--core` is given (when the config has them).
DEFAULT_CORE = {"get_schema", "describe_entity"}
GEMINI_KEYS = {
    "type", "format", "description", "nullable", "enum", "items", "properties", "required",
    "anyOf", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
}
GEMINI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}


def typed_dict(kind, value):
    """Validates `value` as the TypedDict `kind`, refusing keys the type does not have."""
    pydantic.TypeAdapter(kind).validate_python(value)
    known = set(kind.__required_keys__) | set(kind.__optional_keys__)
    unknown = set(value) - known
    if unknown:
        raise ValueError(f"keys {sorted(unknown)} are not in {kind.__name__}")


def gemini_rules(node, path="#"):
    """The Gemini API's schema rules the SDK's models do not check."""
    problems = []
    if not isinstance(node, dict):
        return [f"{path}: not an object"]
    for key in node:
        if key not in GEMINI_KEYS:
            problems.append(f"{path}: `{key}` is not a Gemini schema field")
    if "anyOf" in node:
        if len(node) > 1:
            problems.append(f"{path}: `anyOf` must be alone in its node")
        for i, branch in enumerate(node["anyOf"]):
            problems += gemini_rules(branch, f"{path}/anyOf/{i}")
        return problems
    kind = node.get("type")
    if kind not in GEMINI_TYPES:
        problems.append(f"{path}: type {kind!r}")
    if "enum" in node and not (kind == "STRING" and all(isinstance(v, str) for v in node["enum"])):
        problems.append(f"{path}: enum must list strings of a STRING")
    if kind == "OBJECT":
        properties = node.get("properties") or {}
        if not properties:
            problems.append(f"{path}: OBJECT with empty properties")
        for name, schema in properties.items():
            problems += gemini_rules(schema, f"{path}/properties/{name}")
    if kind == "ARRAY":
        if "items" not in node:
            problems.append(f"{path}: ARRAY without items")
        else:
            problems += gemini_rules(node["items"], f"{path}/items")
    return problems


def check_mcp(tool):
    mcp.types.Tool.model_validate(tool)
    return tool["description"]


def check_openai(tool):
    pydantic.TypeAdapter(openai.types.chat.ChatCompletionToolParam).validate_python(tool)
    typed_dict(openai.types.chat.ChatCompletionFunctionToolParam, tool)
    function = tool["function"]
    typed_dict(openai.types.shared_params.FunctionDefinition, function)
    openai.types.shared.FunctionDefinition.model_validate(function)
    # The strict shape must not break other schema readers (google-genai crashed on it).
    genai.Schema.model_validate(function["parameters"])
    return function["description"]


def check_responses(tool):
    typed_dict(openai.types.responses.FunctionToolParam, tool)
    openai.types.responses.FunctionTool.model_validate(tool)
    genai.Schema.model_validate(tool["parameters"])
    return tool["description"]


def check_anthropic(tool):
    typed_dict(anthropic.types.ToolParam, tool)
    return tool["description"]


def check_gemini(declaration):
    genai.FunctionDeclaration.model_validate(declaration)
    genai.Tool.model_validate({"functionDeclarations": [declaration]})
    if "parameters" in declaration:
        problems = gemini_rules(declaration["parameters"])
        if problems:
            raise ValueError("; ".join(problems))
    return declaration["description"]


def check_deferred_anthropic(tools):
    """The search tool and the deferred tools of an Anthropic export; answers the search tool's
    name and the other tools by name."""
    search, rest = tools[0], tools[1:]
    typed_dict(anthropic.types.ToolSearchToolBm25_20251119Param, search)
    if search.get("type") != "tool_search_tool_bm25_20251119":
        raise ValueError(f"the first tool is {search.get('type')!r}, not the dated BM25 search")
    for tool in rest:
        check_anthropic(tool)
    pydantic.TypeAdapter(list[anthropic.types.ToolUnionParam]).validate_python(tools)
    return search, {tool["name"]: tool for tool in rest}


def check_deferred_responses(tools):
    """The same for an OpenAI Responses export."""
    search, rest = tools[0], tools[1:]
    typed_dict(openai.types.responses.ToolSearchToolParam, search)
    openai.types.responses.ToolSearchTool.model_validate(search)
    for tool in rest:
        if tool.get("type") != "function":
            raise ValueError(f"{tool.get('type')!r} where a function was expected")
        check_responses(tool)
    pydantic.TypeAdapter(list[openai.types.responses.ToolParam]).validate_python(tools)
    for tool in tools:
        pydantic.TypeAdapter(openai.types.responses.Tool).validate_python(tool)
    return search, {tool["name"]: tool for tool in rest}


DEFERRED_CHECKS = {
    "anthropic": check_deferred_anthropic,
    "openai-responses": check_deferred_responses,
}


def deferral_problems(search, tools, plain_names):
    """What breaks the deferral rules: the search tool loaded, the core tools loaded, every
    other tool deferred, the same tools as the plain export."""
    problems = []
    if search.get("defer_loading"):
        problems.append("the search tool itself is deferred")
    if set(tools) != plain_names:
        missing = sorted(plain_names - set(tools))
        extra = sorted(set(tools) - plain_names)
        problems.append(f"not the plain export's tools (missing {missing}, extra {extra})")
    for name, tool in tools.items():
        deferred = tool.get("defer_loading")
        if name in DEFAULT_CORE and deferred is not None:
            problems.append(f"{name}: a core tool with defer_loading {deferred!r}")
        if name not in DEFAULT_CORE and deferred is not True:
            problems.append(f"{name}: defer_loading is {deferred!r}, not true")
    return problems


def check_deferred(toolforge, config, fmt, plain_names):
    """Checks `tools list --defer --format fmt`; answers the problems found."""
    listed = subprocess.run(
        [toolforge, "tools", "list", "--config", config, "--format", fmt, "--defer"],
        capture_output=True, text=True,
    )
    if listed.returncode != 0:
        return [f"tools list --defer failed: {listed.stderr.strip()}"]
    tools = json.loads(listed.stdout)
    if not tools:
        return ["an empty export"]
    try:
        search, by_name = DEFERRED_CHECKS[fmt](tools)
    except Exception as error:  # every rejection is reported, then CI fails
        return [str(error)]
    if len(by_name) != len(tools) - 1:
        return ["a tool name is listed twice"]
    return deferral_problems(search, by_name, plain_names)


CHECKS = {
    "mcp": check_mcp,
    "openai": check_openai,
    "openai-responses": check_responses,
    "anthropic": check_anthropic,
    "gemini": check_gemini,
}


def configs(root):
    patterns = [
        "tests/corpus/*.yaml",
        "tests/fixtures/*.yaml",
        "tests/fixtures/declared/*.yaml",
        "examples/*/ragforge.config.yaml",
    ]
    found = []
    for pattern in patterns:
        found += sorted(glob.glob(os.path.join(root, pattern)))
    return found


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toolforge", default=os.path.join(root, "target", "debug", "toolforge"))
    args = parser.parse_args()

    checked = Counter()
    deferred_checked = Counter()
    failures = []
    valid, skipped = 0, []
    for config in configs(root):
        name = os.path.relpath(config, root)
        validate = subprocess.run(
            [args.toolforge, "validate", "--config", config], capture_output=True, text=True
        )
        if validate.returncode != 0:
            skipped.append(name)
            continue
        valid += 1
        for fmt in FORMATS:
            listed = subprocess.run(
                [args.toolforge, "tools", "list", "--config", config, "--format", fmt],
                capture_output=True, text=True,
            )
            if listed.returncode != 0:
                failures.append(f"{name} [{fmt}]: tools list failed: {listed.stderr.strip()}")
                continue
            tools = json.loads(listed.stdout)
            if fmt in DEFERRED_FORMATS:
                plain_names = {tool["name"] for tool in tools}
                problems = check_deferred(args.toolforge, config, fmt, plain_names)
                if problems:
                    failures += [f"{name} [{fmt} --defer]: {problem}" for problem in problems]
                else:
                    deferred_checked[fmt] += 1
            if fmt == "mcp":
                mcp.types.ListToolsResult.model_validate({"tools": tools})
            if fmt == "gemini":
                genai.Tool.model_validate({"functionDeclarations": tools})
            for tool in tools:
                label = tool.get("name") or tool.get("function", {}).get("name")
                try:
                    description = CHECKS[fmt](tool)
                    if len(description) > MAX_DESCRIPTION:
                        raise ValueError(f"description of {len(description)} characters")
                except Exception as error:  # every rejection is reported, then CI fails
                    failures.append(f"{name} [{fmt}] {label}: {error}")
                    continue
                checked[fmt] += 1

    versions = ", ".join(
        f"{package} {importlib.metadata.version(package)}"
        for package in ["mcp", "openai", "anthropic", "google-genai"]
    )
    print(f"checked with {versions}")
    print(f"{valid} configs, {len(skipped)} skipped as invalid ({', '.join(skipped) or 'none'})")
    for fmt in FORMATS:
        print(f"  {fmt:17} {checked[fmt]:4} definitions accepted")
    for fmt in DEFERRED_FORMATS:
        print(f"  {fmt + ' --defer':24} {deferred_checked[fmt]:4} exports accepted")
    if failures:
        print(f"{len(failures)} rejections:", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    if valid == 0:
        print("no config was checked", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
