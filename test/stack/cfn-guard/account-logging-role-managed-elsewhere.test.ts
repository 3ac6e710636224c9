import { checkVariantWithGuard } from './guarded-synth';

checkVariantWithGuard('account logging role managed elsewhere');
