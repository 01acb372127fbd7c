"""Chat engines: the ChatModel records, the OpenAI wire format and client, the offline engine."""
