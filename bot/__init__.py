"""The Discord side of the dice bot: configuration, client, storage, rendering and errors."""
