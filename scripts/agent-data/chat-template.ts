// The chat template of the shipped agent's tokenizer (written into tokenizer_config.json by
// scripts/make-agent-tokenizer.ts). Qwen2.5/hermes layout — <|im_start|>role ... <|im_end|>,
// tool calls as <tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call> in the assistant
// turn, tool results as <tool_response> blocks inside one user turn — with a much shorter
// `# Tools` block (one line per tool: name, argument names, description; the call format is
// learnt from the SFT traces instead of read from an instruction) so the tiny model's context
// stays small. Tested by tests/unit/tooling/agent-tokenizer.test.ts (rendered and parsed by the agent loop).

export const AGENT_CHAT_TEMPLATE = `{%- if messages[0]['role'] == 'system' %}
    {{- '<|im_start|>system\\n' + messages[0]['content'] }}
{%- else %}
    {{- '<|im_start|>system\\nYou are a helpful agent.' }}
{%- endif %}
{%- if tools %}
    {{- '\\n\\n# Tools\\n<tools>' }}
    {%- for tool in tools %}
        {%- set f = tool.function if tool.function is defined else tool %}
        {{- '\\n' + f.name + '(' }}
        {%- for name, spec in f.parameters.properties.items() %}
            {{- (', ' if not loop.first else '') + name }}
        {%- endfor %}
        {{- '): ' + f.description }}
    {%- endfor %}
    {{- '\\n</tools>' }}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- for message in messages %}
    {%- if message.role == 'user' or (message.role == 'system' and not loop.first) or (message.role == 'assistant' and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
    {%- elif message.role == 'assistant' %}
        {{- '<|im_start|>assistant' }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for call in message.tool_calls %}
            {%- set c = call.function if call.function is defined else call %}
            {{- '\\n<tool_call>\\n{"name": "' + c.name + '", "arguments": ' + (c.arguments | tojson) + '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == 'tool' %}
        {%- if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
`;
